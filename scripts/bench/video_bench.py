#!/usr/bin/python3
"""Video preprocessing benchmark: `mmgate preprocess` on one clip as a whole
command against the Python reference (scripts/golden/video_reference.py:
FFmpeg command-line decode of the same stream, Pillow/NumPy on the sampled
frames), in one run.

Called by scripts/bench/video_bench.sh; run it with Debian's /usr/bin/python3.
Needs hyperfine.

What is timed, per model:
  * mmgate: `mmgate preprocess --model M CLIP` as a whole command (process
    start, model loading, header reading, FFmpeg decode, resize, normalize,
    patchify; stdout discarded, no --hash), by hyperfine without a shell,
    after --warmup runs, --repeat runs;
  * reference, whole command: `video_reference.py --model M --select CLIP`
    (Python start and imports included: ffprobe -count_frames, ffprobe for
    the rate, the first frame for the size, one FFmpeg decode with the same
    select filter, then Pillow resize + NumPy normalize/patchify per frame),
    the same way;
  * reference, in-process: video_reference.preprocess_file(select=True),
    --repeat calls after one untimed call in the same process.
The headline ratio is whole command against whole command; the one against
the reference's in-process time is printed beside it. Medians throughout.
Before timing, the pixel_values sha256 of both sides must agree.

    video_bench.py --mmgate BIN --video clip.mp4 [--repeat 5] [--model M]...
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import video_reference as ref  # noqa: E402
from preprocess_bench import hyperfine, in_process_ms, ms_stats  # noqa: E402

TARGET = 7.0
REF_SCRIPT = os.path.join(HERE, "..", "golden", "video_reference.py")


def check_equal(mmgate, video, model):
    p = subprocess.run([mmgate, "preprocess", "--model", model, "--hash", video], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("mmgate failed (%d): %s" % (p.returncode, p.stderr))
    got = json.loads(p.stdout.splitlines()[0])
    line, pv = ref.preprocess_file(video, model, select=True)
    want = ref.sha256_f32(pv)
    if got["sha256"] != want or got["grid_thw"] != line["grid_thw"]:
        raise SystemExit("%s %s: mmgate grid %s sha256 %s, reference %s %s"
                         % (video, model, got["grid_thw"], got["sha256"], line["grid_thw"], want))
    return line


def py_in_process(video, model, repeat):
    ref.preprocess_file(video, model, select=True)  # warm-up
    times = []
    for _ in range(repeat):
        pv = None
        t0 = time.perf_counter()
        _, pv = ref.preprocess_file(video, model, select=True)
        times.append((time.perf_counter() - t0) * 1e3)
        del pv
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mmgate", required=True)
    ap.add_argument("--video", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--commit", default="")
    ap.add_argument("--model", action="append")
    a = ap.parse_args()
    for model in a.model or ["qwen3-vl"]:
        line = check_equal(a.mmgate, a.video, model)
        mm = hyperfine([a.mmgate, "preprocess", "--model", model, a.video], a.repeat, a.warmup, shell=False)
        pyw = hyperfine(["/usr/bin/python3", REF_SCRIPT, "--model", model, "--select", a.video], a.repeat, a.warmup, shell=False)
        pyi = py_in_process(a.video, model, a.repeat)
        m, w, i = statistics.median(mm), statistics.median(pyw), statistics.median(pyi)
        res = {"commit": a.commit, "model": model, "video": a.video, "frames": len(line["frames"]),
               "grid_thw": line["grid_thw"], "mmgate_command": ms_stats(mm),
               "mmgate_in_process_ms": in_process_ms(a.mmgate, [a.video], model, None),
               "reference_command": ms_stats(pyw), "reference_in_process": ms_stats(pyi),
               "speedup_command": round(w / m, 2), "speedup_vs_in_process": round(i / m, 2), "sha256_equal": True}
        print(json.dumps(res), flush=True)
        print("commit %s %s: mmgate command %.0f ms; reference command %.0f ms (%.2fx, target >= %g: %s), "
              "in-process %.0f ms (%.2fx); %d runs, medians"
              % (a.commit or "?", model, m, w, w / m, TARGET, "met" if w / m >= TARGET else "MISSED", i, i / m, a.repeat),
              file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
