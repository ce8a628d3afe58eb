#!/usr/bin/python3
"""Golden pixel_values for vision/qwenvl's normalize + patchify stages.

Runs the Hugging Face slow-path arithmetic in NumPy (rescale in float64 then
cast to float32, normalize in float32 with float32 mean/std, channels first,
temporal padding by repeating the last frame, reshape/transpose patchify) on
deterministic synthetic uint8 RGB images that already have their resized size,
so no resize is involved. Writes sha256 digests of the little-endian
float32, float16 and bfloat16 (round to nearest even) pixel_values and the
grids to vision/qwenvl/testdata/numpy_golden.json, and the Qwen3-VL video
frame indices (NumPy float64 linspace) and timestamp strings for a few
stream shapes.

Run with Debian's Python: /usr/bin/python3 scripts/golden/qwenvl_numpy.py
"""
import hashlib
import json
import os
import sys

import numpy as np

CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]
HALF = [0.5, 0.5, 0.5]

MODELS = {
    "qwen2.5-vl": dict(patch=14, merge=2, tps=2, mean=CLIP_MEAN, std=CLIP_STD),
    "qwen3-vl": dict(patch=16, merge=2, tps=2, mean=HALF, std=HALF),
}

# (preset, width, height, seed, do_rescale, do_normalize)
CASES = [
    ("qwen2.5-vl", 56, 84, 0, True, True),
    ("qwen2.5-vl", 84, 56, 17, True, True),
    ("qwen2.5-vl", 5600, 28, 3, True, True),
    ("qwen2.5-vl", 56, 56, 5, True, False),
    ("qwen2.5-vl", 56, 56, 6, False, True),
    ("qwen3-vl", 64, 96, 1, True, True),
    ("qwen3-vl", 1280, 960, 2, True, True),
]


def synth(w, h, seed):
    """Same samples as synthRGB in the Go tests."""
    y, x, c = np.meshgrid(np.arange(h), np.arange(w), np.arange(3), indexing="ij")
    v = (x * 7 + y * 13 + c * 101 + (x * y) % 31 + seed) % 256
    return v.astype(np.uint8)


def pixel_values(img, m, do_rescale, do_normalize, rescale=1 / 255):
    x = img
    if do_rescale:
        x = (x.astype(np.float64) * rescale).astype(np.float32)
    if do_normalize:
        if not np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float32)
        mean = np.array(m["mean"], dtype=x.dtype)
        std = np.array(m["std"], dtype=x.dtype)
        x = (x - mean) / std
    x = x.astype(np.float32)
    x = x.transpose(2, 0, 1)  # channels first
    patches = np.array([x])
    tps, p, mg = m["tps"], m["patch"], m["merge"]
    if patches.shape[0] % tps != 0:
        rep = np.repeat(patches[-1][np.newaxis], tps - patches.shape[0] % tps, axis=0)
        patches = np.concatenate([patches, rep], axis=0)
    c = patches.shape[1]
    gt = patches.shape[0] // tps
    gh, gw = x.shape[1] // p, x.shape[2] // p
    patches = patches.reshape(gt, tps, c, gh // mg, mg, p, gw // mg, mg, p)
    patches = patches.transpose(0, 3, 6, 4, 7, 2, 1, 5, 8)
    flat = patches.reshape(gt * gh * gw, c * tps * p * p)
    return flat, [gt, gh, gw]


# Qwen3VLVideoProcessor sampling: (total frames, source fps).
VIDEOS = [(48, 24.0), (300, 30.0), (7, 25.0), (1000, 29.97), (20000, 30.0), (3, 24.0), (1, 24.0), (97, 23.976)]


def qwen3_video(total, src_fps, fps=2, min_frames=4, max_frames=768):
    """Frame indices (NumPy float64 linspace, rounded half to even) and the
    per-group timestamp strings ("{:.1f}")."""
    n = int(total / src_fps * fps)
    n = min(max(n, min_frames), max_frames)
    n = min(n, total)
    idx = [int(v) for v in np.round(np.linspace(0, total - 1, n))]
    padded = idx + [idx[-1]] if len(idx) % 2 else idx
    ts = [i / src_fps for i in padded]
    stamps = ["{:.1f}".format((ts[2 * g] + ts[2 * g + 1]) / 2) for g in range(len(padded) // 2)]
    return idx, stamps


def bf16_bits(f32):
    u = f32.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def sha(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = os.path.join(root, "vision", "qwenvl", "testdata", "numpy_golden.json")
    cases = []
    for preset, w, h, seed, do_rescale, do_normalize in CASES:
        m = MODELS[preset]
        flat, grid = pixel_values(synth(w, h, seed), m, do_rescale, do_normalize)
        f32 = flat.astype("<f4")
        cases.append({
            "preset": preset,
            "width": w,
            "height": h,
            "seed": seed,
            "do_rescale": do_rescale,
            "do_normalize": do_normalize,
            "grid_thw": grid,
            "shape": list(f32.shape),
            "sha256_float32": sha(f32),
            "sha256_float16": sha(f32.astype("<f2")),
            "sha256_bfloat16": sha(bf16_bits(f32)),
            "first": [float(v) for v in f32.reshape(-1)[:4]],
        })
    videos = []
    for total, src_fps in VIDEOS:
        idx, stamps = qwen3_video(total, src_fps)
        videos.append({"total": total, "src_fps": src_fps, "indices": idx, "timestamps": stamps})
    doc = {
        "generator": "scripts/golden/qwenvl_numpy.py",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "cases": cases,
        "qwen3_videos": videos,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(out)


if __name__ == "__main__":
    main()
