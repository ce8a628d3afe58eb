#!/usr/bin/python3
"""The transformers v5 PIL-backend image operations, re-implemented with
Pillow and NumPy for the golden references of the processors that keep image
planes (CLIP / LLaVA-1.5, LLaVA-NeXT, Gemma 3).

Each function follows the operation order of `image_processing_backends.py`
(`PilBackend`) and `image_transforms.py`: images are NumPy uint8 arrays in
channels-first (C, H, W) layout, as `PilBackend.process_image` makes them
from an RGB PIL image; `resize` goes through a channels-last PIL image and
`Image.resize((w, h), resample, reducing_gap=None)`; `rescale` multiplies in
float64 and casts to float32; `normalize` subtracts and divides in float32
with mean/std cast to float32; `center_crop` slices or zero-pads as
`image_transforms.center_crop` does.

Pillow >= 12.2 resizes an image more than 100 times taller than wide
vertically first when its height shrinks; Debian's Pillow 9.4.0 predates the
rule, so `pillow_resize` emulates it with two calls (as
reference_preprocess.py does for bicubic), for every filter.

Also: the deterministic synthetic image shared with the Go tests, sha256
helpers for float32 / float16 / bfloat16 bytes, and the vLLM loader
(imported from reference_preprocess.py).
"""

import hashlib
import math
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_preprocess import PreprocessError, load_image, versions  # noqa: E402,F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

OPENAI_CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
OPENAI_CLIP_STD = [0.26862954, 0.26130258, 0.27577711]
IMAGENET_STANDARD_MEAN = [0.5, 0.5, 0.5]
IMAGENET_STANDARD_STD = [0.5, 0.5, 0.5]


def synth(w, h, seed):
    """uint8 H x W x 3: v = (7x + 13y + 101c + (x*y mod 31) + seed) mod 256,
    the same samples as synthImage in the Go tests."""
    y = np.arange(h, dtype=np.int64)[:, None, None]
    x = np.arange(w, dtype=np.int64)[None, :, None]
    c = np.arange(3, dtype=np.int64)[None, None, :]
    v = (x * 7 + y * 13 + c * 101 + (x * y) % 31 + seed) % 256
    return v.astype(np.uint8)


def to_chw(rgb):
    """PilBackend.process_image: np.array(PIL RGB) is H x W x C, transposed to C x H x W."""
    arr = np.array(rgb) if isinstance(rgb, Image.Image) else rgb
    return np.transpose(arr, (2, 0, 1))


def pillow_resize(im, width, height, resample):
    """Image.resize as Pillow >= 12.2 does it (see the module doc)."""
    w_in, h_in = im.size
    if (w_in, h_in) == (width, height):
        return im.copy()
    if h_in > 100 * w_in and height < h_in:
        tmp = im.resize((w_in, height), resample, reducing_gap=None)
        if (w_in, height) == (width, height):
            return tmp
        return tmp.resize((width, height), resample, reducing_gap=None)
    return im.resize((width, height), resample, reducing_gap=None)


def resize(chw, height, width, resample):
    """image_transforms.resize of a uint8 channels-first image: to a PIL
    image (channels last), resize, back to a channels-first array."""
    assert chw.dtype == np.uint8
    im = Image.fromarray(np.transpose(chw, (1, 2, 0)))
    out = np.array(pillow_resize(im, width, height, resample))
    return np.transpose(out, (2, 0, 1))


def rescale(chw, scale):
    """image_transforms.rescale: float64 product, then float32."""
    return (chw.astype(np.float64) * scale).astype(np.float32)


def normalize(chw, mean, std):
    """image_transforms.normalize, channels first: ((x.T - mean) / std).T in
    the image's float dtype (float32 for a uint8 input)."""
    x = chw
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float32)
    m = np.array(mean, dtype=x.dtype)
    s = np.array(std, dtype=x.dtype)
    return ((x.T - m) / s).T


def center_crop(chw, crop_h, crop_w):
    """image_transforms.center_crop, channels first, with its zero padding
    when the image is smaller than the crop."""
    orig_h, orig_w = chw.shape[-2:]
    top = (orig_h - crop_h) // 2
    bottom = top + crop_h
    left = (orig_w - crop_w) // 2
    right = left + crop_w
    if top >= 0 and bottom <= orig_h and left >= 0 and right <= orig_w:
        return chw[..., top:bottom, left:right]
    new_h = max(crop_h, orig_h)
    new_w = max(crop_w, orig_w)
    out = np.zeros_like(chw, shape=chw.shape[:-2] + (new_h, new_w))
    top_pad = math.ceil((new_h - orig_h) / 2)
    left_pad = math.ceil((new_w - orig_w) / 2)
    out[..., top_pad:top_pad + orig_h, left_pad:left_pad + orig_w] = chw
    top += top_pad
    bottom += top_pad
    left += left_pad
    right += left_pad
    return out[..., max(0, top):min(new_h, bottom), max(0, left):min(new_w, right)]


def shortest_edge_size(height, width, size):
    """get_resize_output_image_size(size=int, default_to_square=False), no
    max_size: (new_h, new_w)."""
    short, long = (width, height) if width <= height else (height, width)
    new_short, new_long = size, int(size * long / short)
    return (new_long, new_short) if width <= height else (new_short, new_long)


def size_dict(raw, default_to_square, default):
    """get_size_dict for the forms the fixture configs use: None -> default,
    an int -> {height, width} or {shortest_edge}, a dict as is."""
    if raw is None:
        return dict(default)
    if isinstance(raw, (int, float)):
        return {"height": int(raw), "width": int(raw)} if default_to_square else {"shortest_edge": int(raw)}
    return dict(raw)


def backend_resize(chw, size, resample):
    """PilBackend.resize: {shortest_edge} keeps the aspect ratio, {height,
    width} is exact."""
    h, w = chw.shape[-2:]
    if size.get("shortest_edge") and size.get("longest_edge"):
        raise NotImplementedError("get_size_with_aspect_ratio is not used by these references")
    if size.get("shortest_edge"):
        nh, nw = shortest_edge_size(h, w, size["shortest_edge"])
    elif size.get("height") and size.get("width"):
        nh, nw = size["height"], size["width"]
    else:
        raise ValueError("size %r" % (size,))
    return resize(chw, nh, nw, resample)


def read_json(model_dir, name):
    """A model folder's JSON file as a dict ({} when absent)."""
    import json
    p = os.path.join(model_dir, name)
    if not os.path.exists(p):
        return {}
    with open(p) as f:
        return json.load(f)


def resolve(raw, key, default):
    """A processor config value: a missing or null entry takes the class default."""
    v = raw.get(key)
    return default if v is None else v


def sha256_f32(a):
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f4").tobytes()).hexdigest()


def sha256_f16(a):
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f4").astype("<f2").tobytes()).hexdigest()


def sha256_bf16(a):
    u = np.ascontiguousarray(a, dtype="<f4").view(np.uint32).astype(np.uint64)
    b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")
    return hashlib.sha256(b.tobytes()).hexdigest()


def sha256_u8(a):
    return hashlib.sha256(np.ascontiguousarray(a, dtype=np.uint8).tobytes()).hexdigest()


def sha256_text(s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def corpus_files():
    """The golden corpus: every image under testdata/photos (photos and
    synth/) and a selection of media/testdata/corpus, as paths relative to
    the repository root, sorted."""
    out = []
    base = os.path.join(ROOT, "testdata", "photos")
    for d, _, files in os.walk(base):
        for f in files:
            if not f.endswith((".md", ".json")):
                out.append(os.path.relpath(os.path.join(d, f), ROOT))
    media = ["jpeg_1x1.jpg", "png_1x1.png", "jpeg_cmyk.jpg", "jpeg_grey.jpg", "png_la.png", "png_p_trns.png",
             "gif_transparent.gif", "png_exif_o6.png", "bmp_rgba.bmp", "jpeg_61x37_420.jpg", "photo_city.png"]
    media += ["exif_jpeg_o%d.jpg" % i for i in range(1, 9)]
    out += [os.path.join("media", "testdata", "corpus", f) for f in media]
    return sorted(p.replace(os.sep, "/") for p in out)


def case(result, rgb, cfg, variant, halves=False):
    """One golden case: result(rgb, cfg) gives (pixel_values, info, text),
    info holding the token count and the family's extras, text what one
    anchor becomes in the prompt."""
    pv, info, text = result(rgb, cfg)
    c = {"variant": variant, "shape": list(pv.shape)}
    c.update(info)
    c["sha256"] = sha256_f32(pv)
    c["text_sha256"] = sha256_text(text)
    if halves:
        c["sha256_bfloat16"] = sha256_bf16(pv)
        c["sha256_float16"] = sha256_f16(pv)
    return c


def write_golden(out, family, result, cfgs, variants, synth_sizes, file_variants=None, extra=None):
    """Writes a golden file: every corpus file (file_variants, default all)
    and every synthesized size (all variants, with the 16-bit hashes)."""
    files = []
    for rel in corpus_files():
        entry = {"file": rel}
        try:
            im = load_image(os.path.join(ROOT, rel))
        except PreprocessError as e:
            entry["error"] = e.kind
            files.append(entry)
            continue
        entry["width"], entry["height"] = im.size
        entry["decoded_sha256"] = sha256_u8(np.asarray(im))
        entry["cases"] = [case(result, im, cfgs[v], v) for v in (file_variants or variants)]
        files.append(entry)
        print(rel, file=sys.stderr)
    synth_cases = []
    for i, (w, h) in enumerate(synth_sizes):
        rgb = synth(w, h, i)
        synth_cases.append({"width": w, "height": h, "seed": i,
                            "cases": [case(result, rgb, cfgs[v], v, halves=True) for v in variants]})
    doc = {
        "generator": "scripts/golden/%s_reference.py" % family,
        "description": "pixel_values (float32 little-endian C order) sha256, shape, token count, extras and "
                       "the sha256 of the prompt text one image anchor becomes, per corpus file and per "
                       "synthesized image (synthImage formula), for each config variant (overrides of "
                       "preprocessor_config.json in the package's testdata model folder).",
        "versions": versions(),
        "variants": variants,
    }
    doc.update(extra or {})
    doc["files"] = files
    doc["synth"] = synth_cases
    dump(doc, out)
    return doc


def cli(argv, doc, model_dir, load_config, result, write, flags=()):
    """The command line of a reference script: FILE... prints one JSON line
    per file like `mmgate preprocess`; --write-golden OUT calls write(OUT).
    flags are (name, preprocessor_config overrides) switches."""
    import argparse
    import json
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--model", default=model_dir)
    ap.add_argument("--hash", action="store_true", help="add sha256 of pixel_values (float32 LE)")
    ap.add_argument("--write-golden", metavar="OUT")
    for name, _ in flags:
        ap.add_argument("--" + name, action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if a.write_golden:
        write(a.write_golden)
        return 0
    overrides = {}
    for name, ov in flags:
        if getattr(a, name.replace("-", "_")):
            overrides.update(ov)
    cfg = load_config(a.model, overrides)
    status = 0
    for f in a.files:
        try:
            im = load_image(f)
        except PreprocessError as e:
            print(json.dumps({"file": f, "error": str(e)}))
            status = 1
            continue
        pv, info, _ = result(im, cfg)
        out = {"file": f, "shape": list(pv.shape)}
        out.update(info)
        if a.hash:
            out["sha256"] = sha256_f32(pv)
        print(json.dumps(out), flush=True)
    return status


def dump(doc, path):
    """JSON with one case per line, so that a changed case is a one-line diff."""
    import json
    c = lambda v: json.dumps(v, separators=(", ", ": "))
    lines = ["{"]
    keys = list(doc)
    for i, k in enumerate(keys):
        end = "," if i + 1 < len(keys) else ""
        v = doc[k]
        if isinstance(v, list):
            lines.append(" %s: [" % c(k))
            for j, e in enumerate(v):
                lines.append("  %s%s" % (c(e), "," if j + 1 < len(v) else ""))
            lines.append(" ]" + end)
        else:
            lines.append(" %s: %s%s" % (c(k), c(v), end))
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
