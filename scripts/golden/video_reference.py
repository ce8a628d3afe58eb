#!/usr/bin/python3
"""Reference video preprocessing for Qwen2-VL / Qwen2.5-VL / Qwen3-VL.

The parity boundary is FFmpeg's rgb24 frames (docs/preprocessing.md, "Video"):
frames come from Debian's FFmpeg 5.1 command line

    ffmpeg -i FILE -map 0:v:0 -fps_mode passthrough -f rawvideo -pix_fmt rgb24 -

and the frame count is the number of frames it yields; the source fps is the
stream's avg_frame_rate from ffprobe (r_frame_rate when unknown). Sampling:

  * Qwen3-VL: transformers Qwen3VLVideoProcessor (fps 2, min 4 / max 768
    frames, NumPy float64 linspace rounded half to even, no even count) and
    its T*H*W smart_resize (factor 32, temporal factor 2, 4096 / 25165824);
    timestamps per temporal group from the sampled indices and the fps.
  * Qwen2-VL / Qwen2.5-VL: qwen-vl-utils 0.0.10 (FRAME_FACTOR 2, fps 2,
    min 4 / max 768, torch float32 linspace as ATen's CPU kernel fills it,
    emulated in NumPy float32; per-frame pixel budgets from total_pixels),
    then the image processor's smart_resize (3136 / 12845056) again;
    second_per_grid_ts = 2 / sample_fps for Qwen2.5-VL.

Each sampled frame is resized with Pillow BICUBIC and normalized as the image
reference does (reference_preprocess.py, used as a library), the count is
padded to even with the last frame and the frames are patchified by
reshape/transpose.

Run with Debian's /usr/bin/python3 (Pillow 9.4.0, NumPy 1.24.2) and Debian's
ffmpeg/ffprobe 5.1.

    video_reference.py --make-videos DIR        synthesize the test clips
    video_reference.py --write-golden OUT DIR   goldens for every clip in DIR
    video_reference.py --model qwen3-vl [--fps F | --num-frames N]
        [--min-pixels N] [--max-pixels N] [--total-pixels N] [--hash]
        [--select] [--time] FILE...              one JSON line per file
"""

import argparse
import hashlib
import json
import math
import os
import struct
import subprocess
import sys
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_preprocess as ref  # noqa: E402

QWEN3_VIDEO = dict(fps=2.0, min_frames=4, max_frames=768, min_pixels=4096, max_pixels=25165824)


class VideoError(Exception):
    """kind: decode, frames (sampling refuses the count), size (resize refuses)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


# ---------------------------------------------------------------- decoding

def ffprobe_stream(path, count=False):
    args = ["ffprobe", "-v", "error"]
    if count:
        args.append("-count_frames")
    args += ["-select_streams", "v:0", "-show_entries",
             "stream=avg_frame_rate,r_frame_rate,nb_read_frames", "-of", "json", path]
    p = subprocess.run(args, capture_output=True)
    if p.returncode != 0:
        raise VideoError("decode", p.stderr.decode(errors="replace").strip())
    streams = json.loads(p.stdout)["streams"]
    if not streams:
        raise VideoError("decode", "no video stream")
    return streams[0]


def rate(s):
    try:
        n, d = s.split("/")
        n, d = int(n), int(d)
    except (ValueError, AttributeError):
        return 0.0
    return n / d if n > 0 and d > 0 else 0.0


def source_fps(path):
    s = ffprobe_stream(path)
    return rate(s.get("avg_frame_rate")) or rate(s.get("r_frame_rate"))


def frame_size(path):
    """(width, height) of the decoded rgb24 frames, from the first frame as a
    PPM (rotation and all, as the command line produces it)."""
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-frames:v", "1",
                        "-f", "image2pipe", "-c:v", "ppm", "-"], capture_output=True)
    if p.returncode != 0 or not p.stdout.startswith(b"P6"):
        raise VideoError("decode", p.stderr.decode(errors="replace").strip())
    w, h = p.stdout.split(maxsplit=3)[1:3]
    return int(w), int(h)


def decode_all(path):
    """Every frame, (N, H, W, 3) uint8, from the reference command line."""
    w, h = frame_size(path)
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                        "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True)
    if p.returncode != 0:
        raise VideoError("decode", p.stderr.decode(errors="replace").strip())
    fb = w * h * 3
    if len(p.stdout) % fb:
        raise VideoError("decode", "partial frame")
    return np.frombuffer(p.stdout, dtype=np.uint8).reshape(-1, h, w, 3)


def select_tree(uniq):
    """A balanced sum of eq()/between() terms (a long flat sum overflows
    FFmpeg's expression parser)."""
    runs = []
    for n in uniq:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])

    def tree(rs):
        if len(rs) == 1:
            a, b = rs[0]
            return "eq(n\\,%d)" % a if a == b else "between(n\\,%d\\,%d)" % (a, b)
        m = len(rs) // 2
        return "(" + tree(rs[:m]) + "+" + tree(rs[m:]) + ")"
    return tree(runs)


def decode_selected(path, indices):
    """Only the given (sorted) frames, with a select filter; used by the
    benchmark so that the reference does the same work as mmgate."""
    w, h = frame_size(path)
    uniq = sorted(set(indices))
    expr = "select='" + select_tree(uniq) + "'"
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-vf", expr,
                        "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                       capture_output=True)
    if p.returncode != 0:
        raise VideoError("decode", p.stderr.decode(errors="replace").strip())
    arr = np.frombuffer(p.stdout, dtype=np.uint8).reshape(-1, h, w, 3)
    if arr.shape[0] != len(uniq):
        raise VideoError("decode", "selected %d frames, want %d" % (arr.shape[0], len(uniq)))
    pos = {v: i for i, v in enumerate(uniq)}
    return arr[[pos[i] for i in indices]]


# ---------------------------------------------------------------- sampling

def round_by(x, f):
    return round(x / f) * f


def ceil_by(x, f):
    return math.ceil(x / f) * f


def floor_by(x, f):
    return math.floor(x / f) * f


def sample_qwen3(total, src_fps, fps=None, num_frames=None):
    """Qwen3VLVideoProcessor.sample_frames."""
    if num_frames is None:
        if not src_fps:
            src_fps = 24
        fps = QWEN3_VIDEO["fps"] if fps is None else fps
        num_frames = int(total / src_fps * fps)
        num_frames = min(max(num_frames, QWEN3_VIDEO["min_frames"]), QWEN3_VIDEO["max_frames"], total)
    return [int(v) for v in np.linspace(0, total - 1, num_frames).round().astype(int)]


def torch_linspace_f32(start, end, n):
    """torch.linspace(start, end, n) in float32 as ATen's CPU kernel fills it."""
    out = np.empty(n, dtype=np.float32)
    if n == 1:
        out[0] = start
        return out
    s, e = np.float32(start), np.float32(end)
    step = np.float32((e - s) / np.float32(n - 1))
    half = n // 2
    for k in range(n):
        if k < half:
            out[k] = np.float32(s + np.float32(step * np.float32(k)))
        else:
            out[k] = np.float32(e - np.float32(step * np.float32(n - 1 - k)))
    return out


def sample_qwen25(total, video_fps, fps=None, nframes=None):
    """qwen-vl-utils 0.0.10 smart_nframes + linspace; returns (indices, sample_fps)."""
    if nframes is not None:
        n = round_by(nframes, 2)
    else:
        fps = 2.0 if fps is None else fps
        min_frames = ceil_by(4, 2)
        max_frames = floor_by(min(768, total), 2)
        n = total / video_fps * fps
        n = min(min(max(n, min_frames), max_frames), total)
        n = floor_by(n, 2)
    if not (2 <= n <= total):
        raise VideoError("frames", "nframes should in interval [2, %d], but got %d" % (total, n))
    idx = [int(v) for v in np.round(torch_linspace_f32(0, total - 1, n))]
    return idx, n / max(total, 1e-6) * video_fps


# ---------------------------------------------------------------- sizes

def smart_resize_qwen3_video(num_frames, height, width, min_pixels, max_pixels, factor=32, temporal_factor=2):
    if num_frames < temporal_factor:
        raise VideoError("size", "t:%d must be larger than temporal_factor" % num_frames)
    if height < factor or width < factor:
        raise VideoError("size", "height/width smaller than factor")
    if max(height, width) / min(height, width) > 200:
        raise VideoError("size", "aspect ratio")
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    t_bar = round(num_frames / temporal_factor) * temporal_factor
    if t_bar * h_bar * w_bar > max_pixels:
        beta = math.sqrt((num_frames * height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif t_bar * h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (num_frames * height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def smart_resize_utils(height, width, factor, min_pixels, max_pixels):
    """qwen-vl-utils 0.0.10 smart_resize."""
    if max(height, width) / min(height, width) > 200:
        raise VideoError("size", "aspect ratio")
    h_bar = max(factor, round_by(height, factor))
    w_bar = max(factor, round_by(width, factor))
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = floor_by(height / beta, factor)
        w_bar = floor_by(width / beta, factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = ceil_by(height * beta, factor)
        w_bar = ceil_by(width * beta, factor)
    return h_bar, w_bar


def sizes_qwen25(n, height, width, cfg, min_pixels=None, max_pixels=None, total_pixels=None):
    """(first, final) (h, w): the utils size, then the image processor's."""
    mn = 128 * 28 * 28 if min_pixels is None else min_pixels
    total = int(float(128000 * 28 * 28 * 0.9)) if total_pixels is None else total_pixels
    mx = max(min(768 * 28 * 28, total / n * 2), int(mn * 1.05))
    if max_pixels is not None:
        mx = min(max_pixels, mx)
    first = smart_resize_utils(height, width, 28, mn, mx)
    try:
        final = ref.smart_resize(first[0], first[1], 28, cfg["min_pixels"], cfg["max_pixels"])
    except ref.PreprocessError as e:
        raise VideoError("size", str(e))
    return first, final


# ---------------------------------------------------------------- plan + pixels

def plan(model, total, src_fps, width, height, fps=None, num_frames=None,
         min_pixels=None, max_pixels=None, total_pixels=None):
    """Returns a dict: indices, first (h, w) or None, final (h, w), and the
    model's timing metadata."""
    if fps is not None and num_frames is not None:
        raise VideoError("options", "fps and num_frames")
    cfg = ref.load_config(model)
    out = {"cfg": cfg}
    if model.startswith("qwen3"):
        idx = sample_qwen3(total, src_fps, fps, num_frames)
        mn = QWEN3_VIDEO["min_pixels"] if min_pixels is None else min_pixels
        mx = QWEN3_VIDEO["max_pixels"] if max_pixels is None else max_pixels
        out["final"] = smart_resize_qwen3_video(len(idx), height, width, mn, mx)
        out["first"] = None
        f = src_fps or 24
        pad = idx + [idx[-1]] * (len(idx) % 2)
        ts = [i / f for i in pad]
        out["timestamps"] = [(ts[i] + ts[i + 1]) / 2 for i in range(0, len(ts), 2)]
    else:
        idx, sfps = sample_qwen25(total, src_fps, fps, num_frames)
        first, final = sizes_qwen25(len(idx), height, width, cfg, min_pixels, max_pixels, total_pixels)
        out["first"] = first if first != final else None
        out["final"] = final
        out["sample_fps"] = sfps
        if model == "qwen2.5-vl":
            out["second_per_grid_ts"] = 2 / sfps
    out["indices"] = idx
    return out


def process(frames, p):
    """frames: (T, H, W, 3) uint8 sampled frames -> pixel_values, grid."""
    cfg = p["cfg"]
    h, w = p["final"]
    out = []
    for fr in frames:
        im = Image.fromarray(np.ascontiguousarray(fr), "RGB")
        if p["first"] is not None:
            im = ref.pillow_resize(im, p["first"][1], p["first"][0])
        im = ref.pillow_resize(im, w, h)
        out.append(ref.normalize(np.asarray(im), cfg["image_mean"], cfg["image_std"]).transpose(2, 0, 1))
    x = np.stack(out)  # T, C, H, W
    tau, ps, m = cfg["temporal_patch_size"], cfg["patch_size"], cfg["merge_size"]
    if x.shape[0] % tau:
        x = np.concatenate([x, np.repeat(x[-1:], tau - x.shape[0] % tau, axis=0)])
    c = x.shape[1]
    gt, gh, gw = x.shape[0] // tau, h // ps, w // ps
    x = x.reshape(gt, tau, c, gh // m, m, ps, gw // m, m, ps).transpose(0, 3, 6, 4, 7, 2, 1, 5, 8)
    return np.ascontiguousarray(x.reshape(gt * gh * gw, c * tau * ps * ps)), (gt, gh, gw)


def preprocess_file(path, model, select=False, **kw):
    """Decode, plan and process one file; returns (line dict, pixel_values)."""
    t0 = time.perf_counter()
    if select:
        total = int(ffprobe_stream(path, count=True)["nb_read_frames"])
        frames_all = None
    else:
        frames_all = decode_all(path)
        total = frames_all.shape[0]
    src_fps = source_fps(path)
    if frames_all is not None:
        height, width = frames_all.shape[1:3]
    else:
        width, height = frame_size(path)
    p = plan(model, total, src_fps, width, height, **kw)
    frames = decode_selected(path, p["indices"]) if select else frames_all[p["indices"]]
    t1 = time.perf_counter()
    pv, grid = process(frames, p)
    t2 = time.perf_counter()
    cfg = p["cfg"]
    line = {"grid_thw": list(grid), "tokens": grid[0] * grid[1] * grid[2] // cfg["merge_size"] ** 2,
            "shape": list(pv.shape), "frames": p["indices"], "fps": src_fps, "total_frames": total,
            "width": int(width), "height": int(height)}
    if p["first"] is not None:
        line["first_size"] = [p["first"][1], p["first"][0]]
    if "timestamps" in p:
        line["timestamps"] = p["timestamps"]
    if "second_per_grid_ts" in p:
        line["second_per_grid_ts"] = p["second_per_grid_ts"]
    if "sample_fps" in p:
        line["sample_fps"] = p["sample_fps"]
    line["timings_ms"] = {"decode": (t1 - t0) * 1e3, "process": (t2 - t1) * 1e3}
    return line, pv


# ---------------------------------------------------------------- test clips

def _set_rotation_90(path):
    """Writes a 90-degree display matrix into the first tkhd box (FFmpeg 5.1
    cannot set one on the command line)."""
    d = bytearray(open(path, "rb").read())
    i = d.find(b"tkhd")
    if i < 4 or d[i + 4] != 0:
        raise RuntimeError("no version-0 tkhd in " + path)
    struct.pack_into(">9I", d, i - 4 + 48, 0, 0x10000, 0, 0xFFFF0000, 0, 0, 0, 0, 0x40000000)
    with open(path, "wb") as f:
        f.write(d)


CLIPS = [
    # name, lavfi source, encoder args
    ("h264_moov_end.mp4", "testsrc2=size=96x64:rate=25:duration=2",
     ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "12", "-bf", "2", "-crf", "30"]),
    ("h264_portrait_faststart.mp4", "testsrc2=size=72x128:rate=30:duration=1.5",
     ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "30", "-movflags", "+faststart"]),
    ("vp9.webm", "mandelbrot=size=80x64:rate=24,format=yuv420p",
     ["-t", "1.5", "-c:v", "libvpx-vp9", "-b:v", "60k"]),
    ("mpeg4.avi", "testsrc=size=98x66:rate=15:duration=2.4", ["-c:v", "mpeg4", "-q:v", "8"]),
    ("odd_yuv444.mov", "testsrc2=size=100x68:rate=20:duration=1.2,scale=99:67,format=yuv444p",
     ["-c:v", "libx264", "-crf", "30"]),
    ("vfr.mp4", "testsrc2=size=96x64:rate=30:duration=2,setpts='N/30/TB+gte(N\\,20)*0.5/TB+gte(N\\,40)*0.25/TB'",
     ["-fps_mode", "passthrough", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "30"]),
    ("three_frames.mp4", "testsrc2=size=64x48:rate=24",
     ["-frames:v", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "30"]),
    ("one_frame.mp4", "testsrc2=size=64x48:rate=24",
     ["-frames:v", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "30"]),
    ("long_40s.mp4", "testsrc=size=64x48:rate=5,format=yuv420p",
     ["-t", "40", "-c:v", "libx264", "-crf", "35", "-g", "250"]),
    ("long_800f.mp4",
     "color=c=0x405060:size=192x176:rate=2,drawbox=x='mod(t*14\\,170)':y='mod(t*6\\,150)':w=20:h=24:color=red:t=fill,format=yuv420p",
     ["-t", "400", "-c:v", "libx264", "-crf", "38", "-g", "800", "-preset", "veryfast"]),
    ("rotated.mp4", "testsrc2=size=96x64:rate=25:duration=1",
     ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "30"]),
]


def make_videos(out):
    os.makedirs(out, exist_ok=True)
    for name, src, enc in CLIPS:
        path = os.path.join(out, name)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", src, *enc,
                        "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact", path],
                       check=True)
        if name == "rotated.mp4":
            _set_rotation_90(path)
    # An edit list starting inside a GOP: the container declares 38 frames,
    # 37 are decoded.
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", "0.5", "-i", os.path.join(out, "h264_moov_end.mp4"),
                    "-c", "copy", "-map_metadata", "-1", "-fflags", "+bitexact", os.path.join(out, "editlist_cut.mp4")],
                   check=True)


# ---------------------------------------------------------------- goldens

GOLDEN_MODELS = ("qwen2.5-vl", "qwen3-vl")
GOLDEN_OVERRIDES = (
    ("default", {}),
    ("fps_4", {"fps": 4.0}),
    ("num_frames_5", {"num_frames": 5}),
    ("max_pixels_2000", {"max_pixels": 2000}),
    ("min_pixels_40000", {"min_pixels": 40000}),
    ("total_pixels_50000", {"total_pixels": 50000}),
)
# Only these files get every override; the others the default only.
OVERRIDE_FILES = ("h264_moov_end.mp4", "vp9.webm", "three_frames.mp4")
# 768 Qwen2.5-VL frames grow to >= 100352 pixels each (about 1 GB of
# float32): kept out of the test suite.
SKIP = {("long_800f.mp4", "qwen2.5-vl")}


def sha256_f32(a):
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f4").tobytes()).hexdigest()


def versions():
    v = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.splitlines()[0]
    d = ref.versions()
    d["ffmpeg"] = v
    d["qwen_vl_utils"] = "0.0.10 (emulated)"
    return d


def golden_cases(root):
    files = []
    for name in sorted(os.listdir(root)):
        if name.endswith((".md", ".json")) or name.startswith(".") or not os.path.isfile(os.path.join(root, name)):
            continue
        path = os.path.join(root, name)
        frames_all = decode_all(path)
        src_fps = source_fps(path)
        entry = {"file": name, "width": int(frames_all.shape[2]), "height": int(frames_all.shape[1]),
                 "frames": int(frames_all.shape[0]), "fps": src_fps, "cases": []}
        for model in GOLDEN_MODELS:
            for oname, kw in GOLDEN_OVERRIDES:
                if oname != "default" and name not in OVERRIDE_FILES:
                    continue
                if model.startswith("qwen3") and "total_pixels" in kw:
                    continue
                if (name, model) in SKIP:
                    continue
                c = {"model": model, "override": oname}
                try:
                    p = plan(model, frames_all.shape[0], src_fps, frames_all.shape[2], frames_all.shape[1], **kw)
                    pv, grid = process(frames_all[p["indices"]], p)
                except VideoError as e:
                    c["error"] = e.kind
                    entry["cases"].append(c)
                    continue
                c["indices"] = p["indices"]
                c["size"] = [p["final"][1], p["final"][0]]
                if p["first"] is not None:
                    c["first_size"] = [p["first"][1], p["first"][0]]
                c["grid_thw"] = list(grid)
                c["tokens"] = grid[0] * grid[1] * grid[2] // 4
                c["shape"] = list(pv.shape)
                for k in ("timestamps", "second_per_grid_ts", "sample_fps"):
                    if k in p:
                        c[k] = p[k]
                c["sha256"] = sha256_f32(pv)
                entry["cases"].append(c)
        files.append(entry)
    return files


def dump_golden(doc):
    """JSON with one case per line, so that a changed case is a one-line diff."""
    c = lambda v: json.dumps(v, separators=(", ", ": "))
    lines = ["{"]
    for k in ("description", "versions", "overrides"):
        lines.append(" %s: %s," % (c(k), c(doc[k])))
    lines.append(' "files": [')
    for i, e in enumerate(doc["files"]):
        head = {k: v for k, v in e.items() if k != "cases"}
        lines.append("  " + c(head)[:-1] + ', "cases": [')
        for j, case in enumerate(e["cases"]):
            lines.append("   %s%s" % (c(case), "," if j + 1 < len(e["cases"]) else ""))
        lines.append("  ]}" + ("," if i + 1 < len(doc["files"]) else ""))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_golden(root, out):
    doc = {
        "description": "Golden outputs of scripts/golden/video_reference.py for the clips in "
                       "media/video/testdata: per clip the decoded frame size, count and average fps; per "
                       "(model, override) the sampled indices, resized size, grid, tokens, shape, timing "
                       "metadata and the sha256 of pixel_values_videos (float32 little-endian, row-major), "
                       "or the error kind (frames, size).",
        "versions": versions(),
        "overrides": {n: kw for n, kw in GOLDEN_OVERRIDES},
        "files": golden_cases(root),
    }
    with open(out, "w") as f:
        f.write(dump_golden(doc))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen3-vl")
    ap.add_argument("--fps", type=float)
    ap.add_argument("--num-frames", type=int)
    ap.add_argument("--min-pixels", type=int)
    ap.add_argument("--max-pixels", type=int)
    ap.add_argument("--total-pixels", type=float)
    ap.add_argument("--hash", action="store_true")
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--select", action="store_true",
                    help="count with ffprobe and decode only the sampled frames (as mmgate does)")
    ap.add_argument("--make-videos", metavar="DIR")
    ap.add_argument("--write-golden", metavar="OUT")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if a.make_videos:
        make_videos(a.make_videos)
        return 0
    if a.write_golden:
        write_golden(a.files[0], a.write_golden)
        return 0
    status = 0
    for f in a.files:
        try:
            line, pv = preprocess_file(f, a.model, select=a.select, fps=a.fps, num_frames=a.num_frames,
                                       min_pixels=a.min_pixels, max_pixels=a.max_pixels,
                                       total_pixels=a.total_pixels)
        except VideoError as e:
            print(json.dumps({"file": f, "error": str(e), "kind": e.kind}), flush=True)
            status = 1
            continue
        line = {"file": f, **line, "dtype": "float32"}
        if not a.time:
            del line["timings_ms"]
        if a.hash:
            line["sha256"] = sha256_f32(pv)
        print(json.dumps(line), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
