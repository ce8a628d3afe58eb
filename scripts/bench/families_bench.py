#!/usr/bin/python3
"""Measures `mmgate preprocess` for each model family against its Python
reference (the family's scripts/golden/*_reference.py: Pillow + NumPy, the
arithmetic of the Hugging Face slow processor).

Called by scripts/bench_families.sh; run it with Debian's /usr/bin/python3.
Needs hyperfine. The timing helpers are preprocess_bench's.

Per family, on the same photos, in the same run:
  * mmgate: the whole command `mmgate preprocess --model FOLDER FILE...`
    (process start, flag parsing and model loading included; stdout
    discarded, no --hash), by hyperfine without a shell (-N), after
    --warmup runs, --repeat runs (preprocess_bench.hyperfine);
  * mmgate in-process: the wall time that command logs at debug level
    ("preprocess done": from the first file read to the last result),
    --repeat runs (preprocess_bench.in_process_ms);
  * python: in-process, the reference's whole work on the photos one after
    another (reference_preprocess.load_image: open, decode, EXIF, RGB; then
    the family's preprocess: resizes, crops or tiles, rescale, normalize,
    stacking), --repeat times after one untimed pass
    (preprocess_bench.time_in_process); imports and configuration excluded.
Ratios use medians: the reference's in-process time over mmgate's whole
command, and over mmgate's in-process time beside it. Before timing, every
photo's pixel_values must have the same sha256 on both sides.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
sys.path.insert(0, HERE)
import clip_reference as C  # noqa: E402
import gemma3_reference as G  # noqa: E402
import glm4v_reference as GLM  # noqa: E402
import internvl_reference as IV  # noqa: E402
import llavanext_reference as LN  # noqa: E402
import preprocess_bench as PB  # noqa: E402
import reference_preprocess as ref  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def folder(pkg, name):
    return os.path.join(ROOT, "vision", pkg, "testdata", name)


def reference(module, preprocess, overrides=None):
    """A family's reference: folder -> (image -> float32 pixel_values), with
    preprocessor_config.json values replaced by overrides."""
    def load(d):
        cfg = module.load_config(d, overrides) if overrides else module.load_config(d)
        fn = getattr(module, preprocess)
        return lambda im: fn(im, cfg)[0]
    return load


# family -> (the reference's model folder, folder -> (image -> float32 pixel_values)).
FAMILIES = {
    "gemma3": (folder("gemma3", "gemma3"), reference(G, "preprocess")),
    "gemma3-pan-and-scan": (folder("gemma3", "gemma3"), reference(G, "preprocess", {"do_pan_and_scan": True})),
    "llava": (folder("clip", "llava-1.5"), reference(C, "preprocess")),
    "llava-next": (folder("llavanext", "llava-next"), reference(LN, "preprocess")),
    "internvl": (folder("internvl", "internvl3"), reference(IV, "preprocess_image")),
    "glm4v": (folder("glm4v", "glm-4.1v"), reference(GLM, "preprocess_image")),
}


def file_work(process):
    """file -> pixel_values: the reference's whole work on one photo."""
    return lambda f: process(ref.load_image(f))


def model_folder(name, mmgate_dir):
    """The folder mmgate reads: the reference's, or a copy with pan-and-scan
    on."""
    d, _ = FAMILIES[name]
    if not name.endswith("pan-and-scan"):
        return d
    import shutil
    dst = os.path.join(mmgate_dir, "gemma3")
    if not os.path.exists(dst):
        shutil.copytree(d, dst)
        with open(os.path.join(dst, "preprocessor_config.json")) as f:
            pre = json.load(f)
        pre["do_pan_and_scan"] = True
        with open(os.path.join(dst, "preprocessor_config.json"), "w") as f:
            json.dump(pre, f)
    return dst


def check(name, mmgate, model, work, files):
    """Both sides give the same bytes before anything is timed."""
    p = subprocess.run(PB.mmgate_cmd(mmgate, files, model, None, ["--hash"]), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("%s: mmgate failed (%d): %s" % (name, p.returncode, p.stderr))
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    if len(lines) != len(files):
        raise SystemExit("%s: mmgate printed %d lines for %d files" % (name, len(lines), len(files)))
    for f, line in zip(files, lines):
        want = ref.sha256_f32(work(f))
        if line.get("sha256") != want:
            raise SystemExit("%s: %s differs from the reference (%s vs %s)" % (name, f, line.get("sha256"), want))


def mmgate_in_process(mmgate, files, model, repeat):
    out = []
    for _ in range(repeat):
        ms = PB.in_process_ms(mmgate, files, model, None)
        if ms is None:
            raise SystemExit("mmgate did not log its wall time: %s" % " ".join(PB.mmgate_cmd(mmgate, files, model, None)))
        out.append(ms)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mmgate", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--commit", default="")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--tmp", required=True, help="a scratch directory")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    names = a.families.split(",")
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise SystemExit("unknown families %s (known: %s)" % (",".join(unknown), ",".join(FAMILIES)))
    res = {"commit": a.commit, "files": a.files, "repeat": a.repeat, "warmup": a.warmup, "nproc": os.cpu_count()}
    for name in names:
        d, make = FAMILIES[name]
        work = file_work(make(d))
        model = model_folder(name, a.tmp)
        check(name, a.mmgate, model, work, a.files)
        whole = PB.hyperfine(PB.mmgate_cmd(a.mmgate, a.files, model, None), a.repeat, a.warmup, shell=False)
        inproc = mmgate_in_process(a.mmgate, a.files, model, a.repeat)
        py = PB.time_in_process(work, a.files, a.repeat)
        res[name] = {"mmgate_command": PB.ms_stats(whole), "mmgate_in_process": PB.ms_stats(inproc),
                     "python_in_process": PB.ms_stats(py),
                     "speedup_vs_python": round(statistics.median(py) / statistics.median(whole), 2),
                     "speedup_in_process": round(statistics.median(py) / statistics.median(inproc), 2)}
        print(json.dumps({name: res[name]}), file=sys.stderr)
    print(json.dumps(res, indent=1))

    print()
    print("commit %s, %d runs each (medians); timing conclusions need a quiet machine" % (a.commit or "?", a.repeat))
    print("  %-20s %11s %15s %8s %13s %8s" % ("family", "python ms", "mmgate cmd ms", "ratio", "in-process ms", "ratio"))
    for name in names:
        r = res[name]
        print("  %-20s %11.1f %15.1f %7.2fx %13.1f %7.2fx"
              % (name, r["python_in_process"]["median_ms"], r["mmgate_command"]["median_ms"], r["speedup_vs_python"],
                 r["mmgate_in_process"]["median_ms"], r["speedup_in_process"]))


if __name__ == "__main__":
    main()
