#!/usr/bin/python3
"""Reference image preprocessing for Qwen2-VL / Qwen2.5-VL / Qwen3-VL.

This is the project's Python reference for the whole image pipeline described in
docs/preprocessing.md: the 2026 vLLM media loader (Pillow open, EXIF
orientation with errors ignored, transparency composited on a background via
paste-with-mask, else convert("RGB")) followed by the Hugging Face slow
(Pillow + NumPy) Qwen2-VL image processor with the transformers v5
smart_resize, Pillow BICUBIC resize (with the Pillow >= 12.2 tall-image rule
emulated as two separate resizes), float64 rescale cast to float32, float32
normalize, temporal padding to two frames and patchify by reshape/transpose.

Run it with Debian's /usr/bin/python3 (Pillow 9.4.0 with libjpeg-turbo 2.1.5
and libwebp 1.2.4, NumPy 1.24.2).

Library use:
    cfg = load_config("qwen2.5-vl")            # or a model directory
    r = preprocess_file(path, cfg, min_pixels=None, max_pixels=None)
    r.pixel_values, r.grid_thw, r.tokens, r.decoded, r.resized

CLI (one JSON line per input, like `mmgate preprocess --hash`):
    reference_preprocess.py --model qwen2.5-vl [--min-pixels N] [--max-pixels N]
        [--hash] [--stages] [--time] FILE...
Goldens (testdata/photos/golden.json):
    reference_preprocess.py --write-golden testdata/photos/golden.json testdata/photos
"""

import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np
from PIL import Image, ImageOps

CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]

PRESETS = {
    "qwen2-vl": dict(patch_size=14, temporal_patch_size=2, merge_size=2,
                     min_pixels=3136, max_pixels=12845056,
                     image_mean=CLIP_MEAN, image_std=CLIP_STD),
    "qwen2.5-vl": dict(patch_size=14, temporal_patch_size=2, merge_size=2,
                       min_pixels=3136, max_pixels=12845056,
                       image_mean=CLIP_MEAN, image_std=CLIP_STD),
    "qwen3-vl": dict(patch_size=16, temporal_patch_size=2, merge_size=2,
                     min_pixels=65536, max_pixels=16777216,
                     image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5]),
}

MAX_RATIO = 200


class PreprocessError(Exception):
    """A refused input. kind is "decode" (the file cannot be opened or
    decoded) or "aspect_ratio" (longer side over 200 x the shorter) or
    "size" (a planned side of 0)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def load_config(preset_or_dir):
    """Returns the processor settings of a preset name or a model directory
    holding preprocessor_config.json."""
    if preset_or_dir in PRESETS:
        return dict(PRESETS[preset_or_dir])
    path = os.path.join(preset_or_dir, "preprocessor_config.json")
    with open(path) as f:
        raw = json.load(f)
    cfg = {}
    size = raw.get("size") or {}
    cfg["min_pixels"] = raw.get("min_pixels", size.get("shortest_edge", 3136))
    cfg["max_pixels"] = raw.get("max_pixels", size.get("longest_edge", 12845056))
    cfg["patch_size"] = raw.get("patch_size", 14)
    cfg["temporal_patch_size"] = raw.get("temporal_patch_size", 2)
    cfg["merge_size"] = raw.get("merge_size", 2)
    cfg["image_mean"] = raw.get("image_mean", CLIP_MEAN)
    cfg["image_std"] = raw.get("image_std", CLIP_STD)
    return cfg


# ---------------------------------------------------------------- loading

def has_transparency(im):
    return im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info


def load_image(path_or_file, background=(255, 255, 255)):
    """vLLM 2026 loader: open, EXIF transpose (errors ignored), composite
    transparency on the background, else convert("RGB"). Returns an RGB
    PIL image."""
    try:
        im = Image.open(path_or_file)
        im.load()
    except Exception as e:  # any Pillow failure: the input cannot be decoded
        raise PreprocessError("decode", "%s: %s" % (type(e).__name__, e))
    try:
        im = ImageOps.exif_transpose(im)
    except Exception:
        pass
    try:
        if has_transparency(im):
            rgba = im.convert("RGBA")
            out = Image.new("RGB", rgba.size, tuple(background))
            out.paste(rgba, mask=rgba.split()[3])
            return out
        return im.convert("RGB")
    except Exception as e:
        raise PreprocessError("decode", "%s: %s" % (type(e).__name__, e))


# ---------------------------------------------------------------- planning

def smart_resize(height, width, factor, min_pixels, max_pixels):
    """transformers v5 smart_resize: (h, w) for a (height, width) input."""
    if max(height, width) / min(height, width) > MAX_RATIO:
        raise PreprocessError(
            "aspect_ratio",
            "absolute aspect ratio must be smaller than %d, got %r"
            % (MAX_RATIO, max(height, width) / min(height, width)))
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    if h_bar <= 0 or w_bar <= 0:
        raise PreprocessError("size", "planned size %dx%d is empty" % (w_bar, h_bar))
    return h_bar, w_bar



# ---------------------------------------------------------------- resizing

def pillow_resize(im, width, height):
    """BICUBIC resize as Pillow >= 12.2 does it: a copy when the size is
    unchanged; for H_in > 100 * W_in shrinking vertically, a vertical-only
    resize followed by a horizontal-only one; otherwise one call."""
    w_in, h_in = im.size
    if (w_in, h_in) == (width, height):
        return im.copy()
    if h_in > 100 * w_in and height < h_in:
        tmp = im.resize((w_in, height), Image.BICUBIC, reducing_gap=None)
        if (w_in, height) == (width, height):
            return tmp
        return tmp.resize((width, height), Image.BICUBIC, reducing_gap=None)
    return im.resize((width, height), Image.BICUBIC, reducing_gap=None)


# ---------------------------------------------------------------- tensors

def normalize(arr, mean, std):
    """uint8 HxWx3 -> float32 HxWx3: float64 x (1/255) cast to float32, then
    (x - f32(mean)) / f32(std) in float32."""
    x = (arr.astype(np.float64) * (1 / 255)).astype(np.float32)
    m = np.array(mean, dtype=np.float32)
    s = np.array(std, dtype=np.float32)
    return (x - m) / s


def patchify(chw, patch, temporal, merge):
    """float32 CxHxW -> (rows, C*temporal*patch*patch) and grid (t, h, w)."""
    frames = chw[np.newaxis]
    if frames.shape[0] % temporal != 0:
        reps = np.repeat(frames[-1][np.newaxis], temporal - frames.shape[0] % temporal, axis=0)
        frames = np.concatenate([frames, reps], axis=0)
    c = frames.shape[1]
    gt = frames.shape[0] // temporal
    gh = frames.shape[2] // patch
    gw = frames.shape[3] // patch
    x = frames.reshape(gt, temporal, c, gh // merge, merge, patch, gw // merge, merge, patch)
    x = x.transpose(0, 3, 6, 4, 7, 2, 1, 5, 8)
    x = x.reshape(gt * gh * gw, c * temporal * patch * patch)
    return np.ascontiguousarray(x), (gt, gh, gw)


class Result:
    __slots__ = ("decoded", "resized", "pixel_values", "grid_thw", "tokens", "timings")


def plan(width, height, cfg, min_pixels=None, max_pixels=None):
    factor = cfg["patch_size"] * cfg["merge_size"]
    mn = cfg["min_pixels"] if min_pixels is None else min_pixels
    mx = cfg["max_pixels"] if max_pixels is None else max_pixels
    return smart_resize(height, width, factor, mn, mx)


def preprocess_image(im, cfg, min_pixels=None, max_pixels=None, keep_stages=False):
    """Process an RGB PIL image. Returns a Result."""
    r = Result()
    t0 = time.perf_counter()
    h, w = plan(im.size[0], im.size[1], cfg, min_pixels, max_pixels)
    resized = pillow_resize(im, w, h)
    t1 = time.perf_counter()
    arr = np.asarray(resized)
    x = normalize(arr, cfg["image_mean"], cfg["image_std"])
    pv, grid = patchify(x.transpose(2, 0, 1), cfg["patch_size"],
                        cfg["temporal_patch_size"], cfg["merge_size"])
    t2 = time.perf_counter()
    r.decoded = np.asarray(im) if keep_stages else None
    r.resized = arr if keep_stages else None
    r.pixel_values = pv
    r.grid_thw = grid
    r.tokens = grid[0] * grid[1] * grid[2] // (cfg["merge_size"] ** 2)
    r.timings = {"resize": (t1 - t0) * 1e3, "normalize_patchify": (t2 - t1) * 1e3}
    return r


def preprocess_file(path, cfg, min_pixels=None, max_pixels=None, keep_stages=False,
                    background=(255, 255, 255)):
    t0 = time.perf_counter()
    im = load_image(path, background)
    t1 = time.perf_counter()
    r = preprocess_image(im, cfg, min_pixels, max_pixels, keep_stages)
    r.timings = dict(decode=(t1 - t0) * 1e3, **r.timings)
    return r


def sha256_f32(a):
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f4").tobytes()).hexdigest()


def sha256_u8(a):
    return hashlib.sha256(np.ascontiguousarray(a, dtype=np.uint8).tobytes()).hexdigest()


def versions():
    from PIL import features
    import PIL
    return {
        "pillow": PIL.__version__,
        "libjpeg_turbo": features.version("libjpeg_turbo") or features.version("jpg"),
        "libwebp": features.version("webp"),
        "zlib": features.version("zlib"),
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "transformers_smart_resize": "v5",
        "pillow_tall_image_rule": "emulated (>= 12.2: vertical first when H > 100 W)",
    }


# ---------------------------------------------------------------- goldens

GOLDEN_PRESETS = ("qwen2.5-vl", "qwen3-vl")
GOLDEN_BACKGROUND = (32, 64, 200)
GOLDEN_BACKGROUND_FILES = ("synth/png_rgba.png", "synth/png_la.png", "synth/png_p_trns.png",
                           "synth/webp_lossy_alpha.webp", "synth/gif_trns.gif", "Spring.png")
GOLDEN_OVERRIDES = (
    ("default", None, None),
    ("max_pixels_1003520", None, 1003520),
    ("min_pixels_200704", 200704, None),
)


def golden_file(args):
    """All golden cases of one corpus file (runs in a worker process)."""
    root, rel = args
    path = os.path.join(root, rel)
    entry = {"file": rel}
    try:
        im = load_image(path)
    except PreprocessError as e:
        entry["error"] = e.kind
        return entry
    entry["width"], entry["height"] = im.size
    entry["decoded_sha256"] = sha256_u8(np.asarray(im))
    cases = []
    for preset in GOLDEN_PRESETS:
        cfg = load_config(preset)
        for name, mn, mx in GOLDEN_OVERRIDES:
            c = {"preset": preset, "override": name}
            try:
                r = preprocess_image(im, cfg, mn, mx, keep_stages=True)
            except PreprocessError as e:
                c["error"] = e.kind
                cases.append(c)
                continue
            c["grid_thw"] = list(r.grid_thw)
            c["tokens"] = r.tokens
            c["shape"] = list(r.pixel_values.shape)
            c["resized_sha256"] = sha256_u8(r.resized)
            c["sha256"] = sha256_f32(r.pixel_values)
            del r
            cases.append(c)
    entry["cases"] = cases
    return entry


def golden_background(args):
    """The qwen2.5-vl default case of a transparent file composited on a
    non-white background."""
    root, rel = args
    im = load_image(os.path.join(root, rel), GOLDEN_BACKGROUND)
    r = preprocess_image(im, load_config("qwen2.5-vl"))
    return {"file": rel, "preset": "qwen2.5-vl", "background": list(GOLDEN_BACKGROUND),
            "decoded_sha256": sha256_u8(np.asarray(im)), "sha256": sha256_f32(r.pixel_values)}


def write_golden(root, out, jobs=2):
    """Runs every corpus file under root (photos and synth/) and writes the
    golden JSON to out."""
    import multiprocessing
    rels = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith((".md", ".json")):
                continue
            rels.append(os.path.relpath(os.path.join(d, f), root))
    rels.sort()
    with multiprocessing.Pool(jobs) as pool:
        entries = pool.map(golden_file, [(root, r) for r in rels], chunksize=1)
        backgrounds = pool.map(golden_background, [(root, r) for r in GOLDEN_BACKGROUND_FILES])
    doc = {
        "description": "Golden outputs of scripts/golden/reference_preprocess.py for testdata/photos: "
                       "per file the sha256 of the decoded RGB (HxWx3 uint8); per (preset, override) the "
                       "grid, token count, pixel_values shape, sha256 of the resized RGB and of pixel_values "
                       "(float32 little-endian, row-major), or the error kind (decode, aspect_ratio); "
                       "background_cases: transparent files composited on a non-white background.",
        "versions": versions(),
        "overrides": {n: {k: v for k, v in (("min_pixels", mn), ("max_pixels", mx)) if v is not None}
                      for n, mn, mx in GOLDEN_OVERRIDES},
        "files": entries,
        "background_cases": backgrounds,
    }
    with open(out, "w") as f:
        f.write(dump_golden(doc))


def dump_golden(doc):
    """JSON with one case per line, so that a changed case is a one-line diff."""
    c = lambda v: json.dumps(v, separators=(", ", ": "))
    lines = ["{"]
    for k in ("description", "versions", "overrides"):
        lines.append(" %s: %s," % (c(k), c(doc[k])))
    lines.append(' "files": [')
    for i, e in enumerate(doc["files"]):
        head = {k: v for k, v in e.items() if k != "cases"}
        if "cases" not in e:
            lines.append("  %s%s" % (c(head), "," if i + 1 < len(doc["files"]) else ""))
            continue
        lines.append("  " + c(head)[:-1] + ', "cases": [')
        for j, case in enumerate(e["cases"]):
            lines.append("   %s%s" % (c(case), "," if j + 1 < len(e["cases"]) else ""))
        lines.append("  ]}" + ("," if i + 1 < len(doc["files"]) else ""))
    lines.append(" ],")
    lines.append(' "background_cases": [')
    for i, b in enumerate(doc["background_cases"]):
        lines.append("  %s%s" % (c(b), "," if i + 1 < len(doc["background_cases"]) else ""))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-vl", help="preset (qwen2-vl, qwen2.5-vl, qwen3-vl) or model directory")
    ap.add_argument("--min-pixels", type=int)
    ap.add_argument("--max-pixels", type=int)
    ap.add_argument("--hash", action="store_true", help="add sha256 of pixel_values (float32 LE)")
    ap.add_argument("--stages", action="store_true", help="add sha256 of decoded and resized RGB")
    ap.add_argument("--time", action="store_true", help="add timings_ms")
    ap.add_argument("--background", default="255,255,255", help="R,G,B for transparent images")
    ap.add_argument("--versions", action="store_true", help="print reference versions and exit")
    ap.add_argument("--write-golden", metavar="OUT", help="write goldens for the corpus directory given as the only FILE")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if a.write_golden:
        write_golden(a.files[0], a.write_golden, a.jobs)
        return 0
    if a.versions:
        print(json.dumps(versions()))
        return 0
    cfg = load_config(a.model)
    status = 0
    for f in a.files:
        try:
            r = preprocess_file(f, cfg, a.min_pixels, a.max_pixels, keep_stages=a.stages,
                                background=tuple(int(v) for v in a.background.split(",")))
        except PreprocessError as e:
            print(json.dumps({"file": f, "error": str(e), "kind": e.kind}))
            status = 1
            continue
        out = {"file": f, "grid_thw": list(r.grid_thw), "tokens": r.tokens,
               "shape": list(r.pixel_values.shape), "dtype": "float32"}
        if a.time:
            out["timings_ms"] = r.timings
        if a.hash:
            out["sha256"] = sha256_f32(r.pixel_values)
        if a.stages:
            out["decoded_sha256"] = sha256_u8(r.decoded)
            out["resized_sha256"] = sha256_u8(r.resized)
        print(json.dumps(out), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
