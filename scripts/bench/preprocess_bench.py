#!/usr/bin/python3
"""Measures `mmgate preprocess` against the Python reference and djpeg.

Called by scripts/bench_preprocess.sh; run it with Debian's /usr/bin/python3.

What is timed (the best of --repeat runs, and the median):
  * python: in-process, the whole work of scripts/golden/reference_preprocess.py
    on the three photos one after another (open/decode, EXIF, RGB, resize,
    normalize, patchify) -- imports and configuration excluded;
  * mmgate: the in-process wall time `mmgate preprocess` logs at debug level
    ("preprocess done", wall_ms: from the first file read to the last
    result, after flag parsing and model loading; hashing is off) -- the
    whole command's wall time is reported too;
  * djpeg: wall time of `djpeg -rgb` run on the three photos one after
    another (three processes, so three process start-ups are included);
  * CPU time (user + system) is reported beside each wall time: on a busy
    machine the wall times are unreliable and the CPU times tell why;
  * memory: the peak resident set (VmHWM, from /usr/bin/time -f %M) of one
    `mmgate preprocess` process on one photo at the default budget, against
    the float32 tensor size; the best of --repeat runs.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import reference_preprocess as ref  # noqa: E402


def stats(xs):
    return {"best_ms": round(min(xs), 2), "median_ms": round(statistics.median(xs), 2)}


def time_python(files, model, max_pixels, repeat):
    """Wall and CPU milliseconds of each repeat."""
    cfg = ref.load_config(model)
    out, cpu = [], []
    for _ in range(repeat):
        c0 = time.process_time()
        t0 = time.perf_counter()
        for f in files:
            r = ref.preprocess_file(f, cfg, None, max_pixels)
            del r
        out.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    return out, cpu


def run_mmgate(mmgate, files, model, max_pixels):
    cmd = [mmgate, "preprocess", "--model", model, "--log-level", "debug", "--log-format", "json"]
    if max_pixels:
        cmd += ["--max-pixels", str(max_pixels)]
    cmd += files
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1e3
    if p.returncode != 0:
        raise SystemExit("mmgate failed (%d): %s" % (p.returncode, p.stderr))
    work = None
    for line in p.stderr.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("msg") == "preprocess done":
            work = float(rec["wall_ms"])
    if work is None:
        raise SystemExit("mmgate did not log its wall time:\n" + p.stderr)
    return work, wall, [json.loads(l) for l in p.stdout.splitlines()]


def time_mmgate(mmgate, files, model, max_pixels, repeat):
    work, wall, cpu = [], [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w, c, _ = run_mmgate(mmgate, files, model, max_pixels)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        work.append(w)
        wall.append(c)
        cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3)
    return work, wall, cpu


def time_djpeg(files, repeat):
    out, cpu = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        for f in files:
            subprocess.run(["djpeg", "-rgb", "-outfile", os.devnull, f], check=True)
        out.append((time.perf_counter() - t0) * 1e3)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3)
    return out, cpu


def peak_rss(cmd):
    """Peak resident memory (VmHWM) of a command, in bytes, from
    /usr/bin/time -f %M (KiB). A small parent matters: a child forked from
    this Python process would inherit its high-water mark in ru_maxrss."""
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
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("files", nargs=3)
    a = ap.parse_args()

    res = {"files": a.files, "model": a.model, "repeat": a.repeat, "nproc": os.cpu_count()}
    # Check that both sides agree before timing them.
    _, _, lines = run_mmgate(a.mmgate, a.files, a.model, None)
    cfg = ref.load_config(a.model)
    for f, line in zip(a.files, lines):
        r = ref.preprocess_file(f, cfg)
        if list(r.grid_thw) != line["grid_thw"]:
            raise SystemExit("grid mismatch for %s: %s vs %s" % (f, r.grid_thw, line["grid_thw"]))
        del r

    for label, cap in (("default", None), ("max_pixels_%d" % a.cap, a.cap)):
        py, pycpu = time_python(a.files, a.model, cap, a.repeat)
        work, wall, cpu = time_mmgate(a.mmgate, a.files, a.model, cap, a.repeat)
        res[label] = {"python": stats(py), "python_cpu": stats(pycpu),
                      "mmgate_work": stats(work), "mmgate_command": stats(wall), "mmgate_command_cpu": stats(cpu),
                      "speedup_vs_python": round(min(py) / min(work), 2)}
    dj, djcpu = time_djpeg(a.files, a.repeat)
    res["djpeg_three"] = stats(dj)
    res["djpeg_three_cpu"] = stats(djcpu)
    capk = "max_pixels_%d" % a.cap
    res[capk]["mmgate_over_djpeg"] = round(min(res[capk]["mmgate_work"]["best_ms"], 1e18) / min(dj), 2)

    rss = min(peak_rss([a.mmgate, "preprocess", "--model", a.model, a.files[0]]) for _ in range(a.repeat))
    _, _, one = run_mmgate(a.mmgate, a.files[:1], a.model, None)
    rows, cols = one[0]["shape"]
    tensor = rows * cols * 4
    res["memory"] = {"file": a.files[0], "vmhwm_bytes": rss, "float32_tensor_bytes": tensor,
                     "vmhwm_over_tensor": round(rss / tensor, 3)}

    print(json.dumps(res, indent=1))
    d, c = res["default"], res[capk]
    print()
    print("targets (the final numbers are taken on a quiet machine):")
    print("  default %-22s speedup vs Python %6.2fx  (target >= 6)" % (a.model, d["speedup_vs_python"]))
    print("  --max-pixels %-17d speedup vs Python %6.2fx  (target >= 4)" % (a.cap, c["speedup_vs_python"]))
    print("  --max-pixels %-17d mmgate / djpeg    %6.2fx  (target <= 1.5)" % (a.cap, c["mmgate_over_djpeg"]))
    print("  VmHWM / float32 tensor (one photo)      %6.3fx  (target <= 1.5)" % res["memory"]["vmhwm_over_tensor"])


if __name__ == "__main__":
    main()
