#!/usr/bin/python3
"""Measures `mmgate preprocess` for each model family against its Python
reference (the family's scripts/golden/*_reference.py: Pillow + NumPy, the
arithmetic of the Hugging Face slow processor).

Called by scripts/bench_families.sh; run it with Debian's /usr/bin/python3.

Per family, on the same photos, in the same run (the best of --repeat runs,
and the median):
  * python: in-process, the reference's whole work on the photos one after
    another (reference_preprocess.load_image: open, decode, EXIF, RGB; then
    the family's preprocess: resizes, crops or tiles, rescale, normalize,
    stacking) -- imports and configuration excluded;
  * mmgate: the in-process wall time `mmgate preprocess --model FOLDER` logs
    at debug level (preprocess_bench.run_mmgate), and the whole command's;
  * CPU time beside each: on a busy machine the wall times are unreliable
    and the CPU times tell why.
Before timing, every photo's pixel_values must have the same sha256 on both
sides.
"""

import argparse
import hashlib
import json
import os
import statistics
import sys
import time

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


def stats(xs):
    return {"best_ms": round(min(xs), 2), "median_ms": round(statistics.median(xs), 2)}


def time_python(files, process, repeat):
    out, cpu = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        for f in files:
            pv = process(ref.load_image(f))
            del pv
        out.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    return out, cpu


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


def check(name, mmgate, model, process, files):
    """Both sides give the same bytes before anything is timed."""
    _, _, lines = PB.run_mmgate(mmgate, ["--hash"] + files, model, None)
    for f, line in zip(files, lines):
        want = hashlib.sha256(process(ref.load_image(f)).astype("<f4").tobytes()).hexdigest()
        if line.get("sha256") != want:
            raise SystemExit("%s: %s differs from the reference (%s vs %s)" % (name, f, line.get("sha256"), want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mmgate", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--tmp", required=True, help="a scratch directory")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    res = {"files": a.files, "repeat": a.repeat, "nproc": os.cpu_count()}
    for name in a.families.split(","):
        d, make = FAMILIES[name]
        process = make(d)
        model = model_folder(name, a.tmp)
        check(name, a.mmgate, model, process, a.files)
        py, pycpu = time_python(a.files, process, a.repeat)
        work, wall, cpu = PB.time_mmgate(a.mmgate, a.files, model, None, a.repeat)
        res[name] = {"python": stats(py), "python_cpu": stats(pycpu), "mmgate_work": stats(work),
                     "mmgate_command": stats(wall), "mmgate_command_cpu": stats(cpu),
                     "speedup_vs_python": round(min(py) / min(work), 2)}
        print(json.dumps({name: res[name]}), file=sys.stderr)
    json.dump(res, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
