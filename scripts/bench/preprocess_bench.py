#!/usr/bin/python3
"""Measures `mmgate preprocess` as a whole command against the Python
reference and against djpeg.

Called by scripts/bench_preprocess.sh; run it with Debian's /usr/bin/python3.
Needs hyperfine and /usr/bin/time.

What is timed:
  * mmgate: the whole command `mmgate preprocess --model M FILE FILE FILE`
    (process start, flag parsing and model loading included; stdout
    discarded, no --hash), by hyperfine without a shell (-N), after
    --warmup runs, --repeat runs;
  * python: in-process, the whole work of scripts/golden/reference_preprocess.py
    on the three files one after another (open/decode, EXIF, RGB, resize,
    normalize, patchify), --repeat times after one untimed pass; imports
    and configuration excluded;
  * djpeg: `djpeg -rgb` on the three files one after another, three
    processes in one shell command line, by hyperfine (which subtracts the
    shell's own start);
  * memory: the peak resident set (VmHWM, /usr/bin/time -f %M) of one
    `mmgate preprocess` on the first file at the default budget, against
    its float32 tensor; the smallest of --repeat runs. Reported beside it,
    for information: the same command's floor, its VmHWM on a 28x28 JPEG
    (the binary's resident pages, the runtime), and what the photo adds
    to it.
Ratios use medians. Before timing, mmgate's pixel_values sha256 must equal
the reference's for every file at both budgets. The in-process wall time
mmgate logs ("preprocess done") is reported beside, for information.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import reference_preprocess as ref  # noqa: E402

TARGETS = {"default": 10.0, "cap": 5.0, "djpeg": 1.0, "memory": 1.1}


def ms_stats(xs):
    return {"median_ms": round(statistics.median(xs), 2), "min_ms": round(min(xs), 2),
            "max_ms": round(max(xs), 2), "runs": len(xs)}


def mmgate_cmd(mmgate, files, model, max_pixels, extra=()):
    cmd = [mmgate, "preprocess", "--model", model, *extra]
    if max_pixels:
        cmd += ["--max-pixels", str(max_pixels)]
    return cmd + list(files)


def hyperfine(cmd, repeat, warmup, shell):
    """Times of a command in ms, by hyperfine. cmd is a list run without a
    shell, or a string run by hyperfine's shell."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        args = ["hyperfine", "--style", "none", "--runs", str(repeat), "--warmup", str(warmup),
                "--export-json", out.name]
        if shell:
            args.append(cmd)
        else:
            args += ["-N", " ".join(quote(c) for c in cmd)]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit("hyperfine failed (%d): %s\n%s" % (p.returncode, " ".join(args), p.stderr))
        res = json.load(open(out.name))["results"][0]
    return [t * 1e3 for t in res["times"]]


def quote(s):
    return s if all(c.isalnum() or c in "/._-=," for c in s) else "'" + s.replace("'", "'\\''") + "'"


def time_in_process(work, files, repeat):
    """Milliseconds of each of --repeat passes of work(file) over the files
    one after another, after one untimed pass."""
    for f in files:  # warm-up pass, untimed
        work(f)
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for f in files:
            r = work(f)
            del r
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def time_python(files, model, max_pixels, repeat):
    cfg = ref.load_config(model)
    return time_in_process(lambda f: ref.preprocess_file(f, cfg, None, max_pixels), files, repeat)


def check_equal(mmgate, files, model, max_pixels):
    """mmgate's lines (with --hash) must match the reference's hashes."""
    p = subprocess.run(mmgate_cmd(mmgate, files, model, max_pixels, ["--hash"]), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("mmgate failed (%d): %s" % (p.returncode, p.stderr))
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    cfg = ref.load_config(model)
    for f, line in zip(files, lines):
        r = ref.preprocess_file(f, cfg, None, max_pixels)
        want = ref.sha256_f32(r.pixel_values)
        if list(r.grid_thw) != line["grid_thw"] or want != line["sha256"]:
            raise SystemExit("%s (max_pixels %s): mmgate grid %s sha256 %s, reference %s %s"
                             % (f, max_pixels, line["grid_thw"], line["sha256"], list(r.grid_thw), want))
        del r
    return lines


def in_process_ms(mmgate, files, model, max_pixels):
    p = subprocess.run(mmgate_cmd(mmgate, files, model, max_pixels, ["--log-level", "debug", "--log-format", "json"]),
                       capture_output=True, text=True)
    for line in p.stderr.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("msg") == "preprocess done":
            return float(rec["wall_ms"])
    return None


def peak_rss(cmd):
    """VmHWM of a command in bytes (/usr/bin/time -f %M, KiB). /usr/bin/time
    forks the command itself: a child of this large Python process would
    start from its high-water mark."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit("%s failed: %s" % (cmd, p.stderr))
    return int(p.stderr.strip().splitlines()[-1]) * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mmgate", required=True)
    ap.add_argument("--model", default="qwen2.5-vl")
    ap.add_argument("--cap", type=int, default=1003520)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--commit", default="")
    ap.add_argument("files", nargs=3)
    a = ap.parse_args()

    res = {"commit": a.commit, "files": a.files, "model": a.model, "repeat": a.repeat, "nproc": os.cpu_count()}
    shapes = {}
    for label, cap in (("default", None), ("cap", a.cap)):
        lines = check_equal(a.mmgate, a.files, a.model, cap)
        shapes[label] = [l["shape"] for l in lines]
    for label, cap in (("default", None), ("cap", a.cap)):
        cmd = mmgate_cmd(a.mmgate, a.files, a.model, cap)
        whole = hyperfine(cmd, a.repeat, a.warmup, shell=False)
        py = time_python(a.files, a.model, cap, a.repeat)
        r = {"max_pixels": cap, "mmgate_command": ms_stats(whole), "python_in_process": ms_stats(py),
             "mmgate_in_process_ms": in_process_ms(a.mmgate, a.files, a.model, cap),
             "speedup_vs_python": round(statistics.median(py) / statistics.median(whole), 2)}
        res[label] = r
    dj = hyperfine("; ".join("djpeg -rgb -outfile /dev/null %s" % quote(f) for f in a.files), a.repeat, a.warmup, shell=True)
    res["djpeg_three"] = ms_stats(dj)
    res["cap"]["mmgate_over_djpeg"] = round(res["cap"]["mmgate_command"]["median_ms"] / statistics.median(dj), 3)

    rss = min(peak_rss(mmgate_cmd(a.mmgate, a.files[:1], a.model, None)) for _ in range(max(1, min(a.repeat, 5))))
    rows, cols = shapes["default"][0]
    tensor = rows * cols * 4
    with tempfile.TemporaryDirectory() as tmp:
        tiny = os.path.join(tmp, "tiny.jpg")
        ref.Image.new("RGB", (28, 28), (90, 120, 150)).save(tiny, quality=90)
        floor = min(peak_rss(mmgate_cmd(a.mmgate, [tiny], a.model, None)) for _ in range(max(1, min(a.repeat, 5))))
    res["memory"] = {"file": a.files[0], "vmhwm_bytes": rss, "float32_tensor_bytes": tensor,
                     "vmhwm_over_tensor": round(rss / tensor, 3), "floor_vmhwm_bytes": floor,
                     "over_floor_over_tensor": round((rss - floor) / tensor, 3)}
    print(json.dumps(res, indent=1))

    def ok(b):
        return "met" if b else "MISSED"
    d, c, m = res["default"], res["cap"], res["memory"]
    print()
    print("commit %s, %d runs each (medians); timing targets hold on a quiet machine only" % (a.commit or "?", a.repeat))
    print("  default budget   python %8.1f ms  mmgate command %7.1f ms  %6.2fx  (target >= %g: %s)"
          % (d["python_in_process"]["median_ms"], d["mmgate_command"]["median_ms"], d["speedup_vs_python"], TARGETS["default"],
             ok(d["speedup_vs_python"] >= TARGETS["default"])))
    print("  --max-pixels %d python %6.1f ms  mmgate command %7.1f ms  %6.2fx  (target >= %g: %s)"
          % (a.cap, c["python_in_process"]["median_ms"], c["mmgate_command"]["median_ms"], c["speedup_vs_python"], TARGETS["cap"],
             ok(c["speedup_vs_python"] >= TARGETS["cap"])))
    print("  --max-pixels %d vs djpeg -rgb x3 %.1f ms: %.3fx  (target <= %g: %s)"
          % (a.cap, res["djpeg_three"]["median_ms"], c["mmgate_over_djpeg"], TARGETS["djpeg"], ok(c["mmgate_over_djpeg"] <= TARGETS["djpeg"])))
    print("  VmHWM %.1f MB / float32 tensor %.1f MB = %.3fx  (target <= %g: %s)"
          % (m["vmhwm_bytes"] / 1e6, tensor / 1e6, m["vmhwm_over_tensor"], TARGETS["memory"], ok(m["vmhwm_over_tensor"] <= TARGETS["memory"])))
    print("    (the command's floor on a 28x28 JPEG: %.1f MB; the photo adds %.1f MB = %.3fx the tensor)"
          % (m["floor_vmhwm_bytes"] / 1e6, (m["vmhwm_bytes"] - m["floor_vmhwm_bytes"]) / 1e6, m["over_floor_over_tensor"]))


if __name__ == "__main__":
    main()
