#!/usr/bin/python3
"""Video preprocessing benchmark: mmgate (internal/videoprep through its Go
benchmark binary) against the Python reference (scripts/golden/video_reference.py)
doing the same work on the same stream, in one run.

Both sides are timed in-process, per video, without process start-up, and
report the median of --repeat calls after one untimed call in the same
process (warm-up: a process's first large tensors land in memory it never
touched, which is far slower than in a running service):
  * mmgate: BenchmarkVideoFile (its per-call times_ms): open, start the
    FFmpeg decode while ffprobe reads the headers, plan, hand FFmpeg the
    select filter for the sampled frames (it counts every decoded frame; MP4
    declares its count) while the tensor is backed with memory, then
    Pillow-exact resize, normalize and patchify of each frame as it arrives.
  * reference: video_reference.preprocess_file(select=True): ffprobe
    -count_frames (a full decode), ffprobe for the
    fps, the first frame for the size, one FFmpeg decode with the same select
    filter, then Pillow resize + NumPy normalize/patchify per frame.
The pixel_values sha256 of both sides must agree.

    video_bench.py --test-bin videoprep.test --video clip.mp4 [--repeat 3] [--model M]...
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import video_reference as ref  # noqa: E402


def go_side(test_bin, video, model, repeat):
    p = subprocess.run([test_bin, "-test.run", "^$", "-test.bench", "^BenchmarkVideoFile$",
                        "-test.benchtime", "%dx" % repeat, "-test.v", "-test.count", "1",
                        "-video", video, "-video-model", model],
                       capture_output=True, text=True, check=True)
    log = re.search(r"model=\S+ frames=(\d+) grid=\[(\d+) (\d+) (\d+)\] sha256=([0-9a-f]+) times_ms=([0-9.,]+) (.*)",
                    p.stdout)
    if not log:
        sys.exit("cannot parse the Go benchmark output:\n" + p.stdout + p.stderr)
    times = [float(t) for t in log.group(6).split(",")]
    return {"ms": statistics.median(times), "frames": int(log.group(1)),
            "grid_thw": [int(log.group(i)) for i in (2, 3, 4)], "sha256": log.group(5),
            "detail": log.group(7)}


def py_side(video, model, repeat):
    ref.preprocess_file(video, model, select=True)  # warm-up
    times, line, pv = [], None, None
    for _ in range(repeat):
        pv = None
        t0 = time.perf_counter()
        line, pv = ref.preprocess_file(video, model, select=True)
        times.append((time.perf_counter() - t0) * 1e3)
    return {"ms": statistics.median(times), "frames": len(line["frames"]), "grid_thw": line["grid_thw"],
            "sha256": ref.sha256_f32(pv), "detail": line["timings_ms"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--test-bin", required=True)
    ap.add_argument("--video", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model", action="append")
    a = ap.parse_args()
    ok = True
    for model in a.model or ["qwen3-vl", "qwen2.5-vl"]:
        g = go_side(a.test_bin, a.video, model, a.repeat)
        r = py_side(a.video, model, a.repeat)
        same = g["sha256"] == r["sha256"] and g["grid_thw"] == r["grid_thw"]
        ok &= same
        print(json.dumps({"model": model, "video": a.video, "frames": g["frames"], "grid_thw": g["grid_thw"],
                          "mmgate_ms": round(g["ms"], 1), "reference_ms": round(r["ms"], 1),
                          "speedup": round(r["ms"] / g["ms"], 2), "sha256_equal": same,
                          "mmgate_detail": g["detail"], "reference_detail_ms": r["detail"]}), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
