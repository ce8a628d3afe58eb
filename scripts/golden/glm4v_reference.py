#!/usr/bin/python3
"""Reference image and video preprocessing for GLM-4.1V / GLM-4.5V (glm4v, glm4v_moe).

Images re-implement transformers v5's Glm4vImageProcessorPil in Pillow + NumPy,
in upstream operation order:

  * smart_resize(num_frames=temporal_patch_size, ...) with factor
    patch_size*merge_size: fewer frames than the temporal factor is an error;
    a side under the factor scales both sides by max(factor/h, factor/w)
    (int() truncation); a ratio over 200 is an error; round() (half to even)
    to multiples of the factor; the bounds size.shortest_edge /
    size.longest_edge apply to t_bar*h_bar*w_bar, beta uses t*h*w;
  * PIL resize (reference_preprocess.pillow_resize: BICUBIC, the Pillow >= 12.2
    tall-image rule emulated), rescale (float64 * 1/255 -> float32),
    normalize ((x - mean) / std in float32), the frame repeated to
    temporal_patch_size and patchified as Qwen2-VL
    (reference_preprocess.patchify);
  * Glm4vProcessor expands <|image|> to grid_t*gh*gw/merge^2 copies.

Videos follow Glm4vVideoProcessor.sample_frames (metadata: total frames,
fps, duration = total/fps as the video loaders report it; up to 300 s,
floor(duration*fps) instants i -> min(total-1, ceil(i*src_fps/fps)); longer:
NumPy linspace(0, duration, 300*fps) instants -> min(total-1, ceil(t*src_fps));
duplicates dropped, an odd count padded with the last index), smart_resize
over the sampled count with the video processor's size, and Glm4vProcessor's
prompt: per temporal group <|begin_of_image|> + pads + <|end_of_image|> +
str(int(timestamps[::2][g])), timestamps = index/fps, inside
<|begin_of_video|> ... <|end_of_video|>. As everywhere in this project, video
frames are resized with Pillow BICUBIC (upstream uses torchvision).

Run with Debian's /usr/bin/python3 (Pillow 9.4.0, NumPy 1.24.2; ffmpeg 5.1
for the real clips):

    glm4v_reference.py [--model DIR] [--hash] FILE...   one JSON line per image
    glm4v_reference.py --write-golden OUT                vision/glm4v/testdata/golden.json
"""

import hashlib
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_preprocess as ref  # noqa: E402
import video_reference as vref  # noqa: E402
from internvl_reference import cli, corpus_images, synth, write_lines  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FIXTURE = os.path.join(ROOT, "vision", "glm4v", "testdata", "glm-4.1v")
CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]


class GlmError(Exception):
    """kind: aspect_ratio, frames (too few sampled frames), fps (no frame rate)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


# ---------------------------------------------------------------- configuration

def settings(raw, lo, hi):
    size = raw.get("size") or {"shortest_edge": lo, "longest_edge": hi}
    return dict(patch_size=raw.get("patch_size", 14), temporal_patch_size=raw.get("temporal_patch_size", 2),
                merge_size=raw.get("merge_size", 2), min_pixels=size["shortest_edge"],
                max_pixels=size["longest_edge"], image_mean=raw.get("image_mean", CLIP_MEAN),
                image_std=raw.get("image_std", CLIP_STD))


def load_config(model_dir, image_over=None):
    with open(os.path.join(model_dir, "preprocessor_config.json")) as f:
        img = json.load(f)
    img.update(image_over or {})
    vid = {}
    p = os.path.join(model_dir, "video_preprocessor_config.json")
    if os.path.exists(p):
        with open(p) as f:
            vid = json.load(f)
    return {"image": settings(img, 112 * 112, 28 * 28 * 15000),
            "video": settings(vid, 112 * 112, 28 * 28 * 2 * 30000),
            "fps": vid.get("fps", 2), "do_sample_frames": vid.get("do_sample_frames", True)}


# ---------------------------------------------------------------- planning

def smart_resize(num_frames, height, width, temporal_factor=2, factor=28,
                 min_pixels=112 * 112, max_pixels=14 * 14 * 2 * 2 * 2 * 6144):
    """GLM's smart_resize: its own first steps (the frame count, small sides
    scaled up with int() truncation, the ratio), then, line for line, what
    Qwen3-VL's video smart_resize does (video_reference.py), whose own checks
    can no longer fail: with factor 28 a scaled side is never under 28."""
    if num_frames < temporal_factor:
        raise GlmError("frames", "t:%d must be larger than temporal_factor:%d" % (num_frames, temporal_factor))
    if height < factor or width < factor:
        scale = max(factor / height, factor / width)
        height = int(height * scale)
        width = int(width * scale)
    if max(height, width) / min(height, width) > 200:
        raise GlmError("aspect_ratio", "absolute aspect ratio must be smaller than 200")
    return vref.smart_resize_qwen3_video(num_frames, height, width, min_pixels, max_pixels, factor, temporal_factor)


def bounds(s, over):
    return (over.get("min_pixels") or s["min_pixels"]), (over.get("max_pixels") or s["max_pixels"])


def sample_frames(total, src_fps, fps, max_duration=300):
    """Glm4vVideoProcessor.sample_frames with VideoMetadata(total_num_frames=total,
    fps=src_fps, duration=total/src_fps)."""
    if not src_fps:
        raise GlmError("fps", "no video metadata fps")
    max_frame_idx = total - 1
    duration = (total / src_fps) or round(max_frame_idx / src_fps) + 1
    if duration <= max_duration:
        n = int(math.floor(duration * fps))
        frame_indices = [min(max_frame_idx, int(math.ceil(i * src_fps / fps))) for i in range(n)]
    else:
        num_samples = int(max_duration * fps)
        if num_samples >= total:
            frame_indices = list(range(total))
        else:
            target_seconds = np.linspace(0, duration, num_samples, endpoint=True)
            frame_indices = [min(max_frame_idx, int(math.ceil(t * src_fps))) for t in target_seconds]
    seen, uniq = set(), []
    for idx in frame_indices:
        if idx not in seen:
            seen.add(idx)
            uniq.append(idx)
    if len(uniq) & 1:
        uniq.append(uniq[-1])
    return uniq


def group_seconds(indices, src_fps, num_frames):
    """Glm4vProcessor: int() of timestamps[::2], padded with the last (or 0)."""
    timestamps = [i / src_fps for i in indices][::2]
    selected = timestamps[:num_frames]
    while len(selected) < num_frames:
        selected.append(selected[-1] if selected else 0)
    return [int(t) for t in selected]


# ---------------------------------------------------------------- pixels

def process_frames(frames, s, h, w):
    """uint8 HxWx3 frames -> pixel_values rows and grid (Qwen2-VL patchify)."""
    p = {"cfg": s, "first": None, "final": (h, w)}
    return vref.process(frames, p)


def preprocess_image(im, cfg, over=None):
    s = cfg["image"]
    w0, h0 = im.size
    lo, hi = bounds(s, over or {})
    h, w = smart_resize(s["temporal_patch_size"], h0, w0, s["temporal_patch_size"],
                        s["patch_size"] * s["merge_size"], lo, hi)
    pv, grid = process_frames([np.asarray(im)], s, h, w)
    return pv, grid, (w, h)


def sha(a):
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f4").tobytes()).hexdigest()


def image_result(pv, grid, size, merge):
    return {"size": list(size), "grid_thw": list(grid), "tokens": grid[0] * grid[1] * grid[2] // merge ** 2,
            "shape": list(pv.shape), "sha256": sha(pv)}


def video_result(frames_of, total, src_fps, width, height, cfg, over=None):
    """frames_of(indices) -> (T, H, W, 3) uint8. Returns the golden fields."""
    over = over or {}
    s = cfg["video"]
    if cfg["do_sample_frames"] or over.get("fps"):
        idx = sample_frames(total, src_fps, over.get("fps") or cfg["fps"])
    else:
        idx = list(range(total))
    lo, hi = bounds(s, over)
    h, w = smart_resize(len(idx), height, width, s["temporal_patch_size"], s["patch_size"] * s["merge_size"], lo, hi)
    pv, grid = process_frames(frames_of(idx), s, h, w)
    per = grid[1] * grid[2] // s["merge_size"] ** 2
    secs = group_seconds(idx, src_fps, grid[0])
    text = "<|begin_of_video|>" + "".join(
        "<|begin_of_image|><|image|><|end_of_image|>%d" % t for t in secs) + "<|end_of_video|>"
    return {"indices": idx, "size": [w, h], "grid_thw": list(grid), "tokens": grid[0] * per,
            "shape": list(pv.shape), "seconds": secs, "prompt": text, "runs": [per] * grid[0], "sha256": sha(pv)}


# ---------------------------------------------------------------- goldens

IMAGE_OVERRIDES = {"default": {}, "max_pixels_2007040": {"max_pixels": 2007040},
                   "min_pixels_1605632": {"min_pixels": 1605632}}
CONFIGS = {"glm-4.1v": None, "bounds_small": {"size": {"shortest_edge": 3136, "longest_edge": 100352}}}
SYNTH_SIZES = [(1, 1), (1, 3), (3, 1), (2, 2), (27, 27), (27, 28), (28, 27), (28, 28), (29, 29), (13, 40),
               (40, 13), (3, 7), (7, 3), (5, 1000), (5, 1001), (1000, 5), (1, 200), (1, 201), (28, 5600),
               (28, 5601), (70, 98), (126, 70), (56, 56), (56, 28), (40, 30), (300, 200), (333, 77),
               (1919, 1081), (1024, 1024), (2000, 20), (17, 1200), (6, 20)]
# (frames, source fps, width, height, override)
SYNTH_VIDEOS = [(37, 25.0, 96, 64, {}), (1, 30.0, 50, 40, {}), (2, 2.0, 56, 42, {}), (7, 25.0, 64, 48, {}),
                (13, 6.5, 60, 40, {}), (48, 24.0, 20, 30, {}), (97, 23.976, 64, 36, {}), (30, 29.97, 48, 48, {}),
                (700, 2.0, 32, 24, {}), (20000, 30.0, 28, 28, {}), (601, 2.0, 30, 30, {}),
                (37, 25.0, 96, 64, {"fps": 4.0}), (37, 25.0, 96, 64, {"fps": 0.5}),
                (37, 25.0, 96, 64, {"max_pixels": 20000}), (37, 25.0, 96, 64, {"min_pixels": 400000}),
                (300, 25.0, 5, 700, {})]


def synth_frames(w, h):
    return lambda idx: [np.asarray(synth(w, h, i)) for i in idx]


def image_cases(cfg_files):
    files = []
    for entry, im in corpus_images():
        files.append(entry)
        if im is None:
            continue
        entry["cases"] = []
        for oname, over in IMAGE_OVERRIDES.items():
            c = {"override": oname}
            try:
                pv, grid, size = preprocess_image(im, cfg_files, over)
                c.update(image_result(pv, grid, size, 2))
            except GlmError as e:
                c["error"] = e.kind
            entry["cases"].append(c)
    return files


def synthetic_cases():
    out = []
    for name, over in CONFIGS.items():
        cfg = load_config(FIXTURE, over)
        for i, (w, h) in enumerate(SYNTH_SIZES):
            c = {"config": name, "width": w, "height": h, "seed": i}
            try:
                pv, grid, size = preprocess_image(synth(w, h, i), cfg)
                c.update(image_result(pv, grid, size, 2))
            except GlmError as e:
                c["error"] = e.kind
            out.append(c)
    return out


def video_cases(cfg):
    out = []
    for total, fps, w, h, over in SYNTH_VIDEOS:
        c = {"frames": total, "fps": fps, "width": w, "height": h, "override": over}
        try:
            c.update(video_result(synth_frames(w, h), total, fps, w, h, cfg, over))
        except GlmError as e:
            c["error"] = e.kind
        out.append(c)
    all_frames = dict(cfg, do_sample_frames=False)
    for total, w, h in ((5, 40, 30), (6, 40, 30), (1, 40, 30)):
        c = {"frames": total, "fps": 10.0, "width": w, "height": h, "override": {}, "do_sample_frames": False}
        try:
            c.update(video_result(synth_frames(w, h), total, 10.0, w, h, all_frames))
        except GlmError as e:
            c["error"] = e.kind
        out.append(c)
    return out


def clip_cases(cfg):
    root = os.path.join(ROOT, "media", "video", "testdata")
    out = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if name.endswith((".md", ".json")) or not os.path.isfile(path):
            continue
        frames_all = vref.decode_all(path)
        total, h, w = frames_all.shape[:3]
        fps = vref.source_fps(path)
        c = {"file": name, "frames": int(total), "fps": fps, "width": int(w), "height": int(h)}
        try:
            c.update(video_result(lambda idx: frames_all[idx], int(total), fps, int(w), int(h), cfg))
        except GlmError as e:
            c["error"] = e.kind
        out.append(c)
        print(name, file=sys.stderr)
    return out


def write_golden(out_path):
    cfg = load_config(FIXTURE)
    doc = {
        "generator": "scripts/golden/glm4v_reference.py --write-golden",
        "versions": dict(ref.versions(), transformers="v5 Glm4vImageProcessorPil, Glm4vVideoProcessor.sample_frames, "
                         "Glm4vProcessor"),
        "image_overrides": IMAGE_OVERRIDES,
        "configs": {k: (v if v is not None else "testdata/glm-4.1v") for k, v in CONFIGS.items()},
        "files": image_cases(cfg),
        "synthetic": synthetic_cases(),
        "videos": video_cases(cfg),
        "clips": clip_cases(cfg),
    }
    write_lines(out_path, doc)


def image_processor(model_dir):
    """The per-image function of the command line: RGB image -> result fields."""
    cfg = load_config(model_dir)

    def one(im):
        pv, grid, size = preprocess_image(im, cfg)
        return image_result(pv, grid, size, cfg["image"]["merge_size"])
    return one


if __name__ == "__main__":
    cli(__doc__, FIXTURE, write_golden, image_processor, GlmError)
