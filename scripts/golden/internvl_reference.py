#!/usr/bin/python3
"""Reference image preprocessing for InternVL3 / InternVL3.5 (-hf, model type internvl).

Re-implements, in Pillow + NumPy and in upstream operation order, what
transformers v5's InternVLProcessor does with an image: it calls
GotOcr2ImageProcessorPil with crop_to_patches=True (the processor's own
default, whatever preprocessor_config.json says), which

  * picks the tile grid with get_optimal_tiled_canvas (candidates (cols, rows)
    with min_patches <= cols*rows <= max_patches, cols-outer / rows-inner,
    stably sorted by cols*rows; closest cols/rows to width/height; on an exact
    tie a later candidate wins when width*height > 0.5*tileH*tileW*cols*rows);
  * resizes the image once (PIL, the configured filter) to
    (tileW*cols, tileH*rows) and cuts it into tiles row by row;
  * appends a tileW x tileH resize of the whole image (the thumbnail) when
    there is more than one tile;
  * rescales each tile (uint8 -> float64 * rescale_factor -> float32) and
    normalizes it ((x - mean) / std in float32), channels first.

With max_patches <= 1 the image is resized to the tile size (if do_resize)
and processed as one patch. The prompt gets <img> + image_seq_length *
num_patches <IMG_CONTEXT> + </img> per image.

Images load as vLLM 2026 does (reference_preprocess.load_image: EXIF
orientation, transparency on white, else RGB) and every resize is
reference_preprocess.pillow_resize (Pillow BICUBIC with the Pillow >= 12.2
tall-image rule emulated).

Run with Debian's /usr/bin/python3 (Pillow 9.4.0, NumPy 1.24.2):

    internvl_reference.py --model DIR [--hash] FILE...     one JSON line per file
    internvl_reference.py --write-golden OUT               vision/internvl/testdata/golden.json
"""

import argparse
import hashlib
import json
import math
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_preprocess as ref  # noqa: E402
from qwenvl_numpy import bf16_bits, synth as synth_array  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]


# ---------------------------------------------------------------- configuration

def config_from(pre, processor=None):
    """Processor settings from a preprocessor_config.json dict (and a
    processor_config.json dict), with the class defaults of
    GotOcr2ImageProcessorPil / InternVLProcessor where absent or null."""
    def get(key, default):
        v = pre.get(key)
        return default if v is None else v
    size = get("size", {"height": 384, "width": 384})
    if isinstance(size, (int, float)):
        size = {"height": int(size), "width": int(size)}
    mean = get("image_mean", CLIP_MEAN)
    std = get("image_std", CLIP_STD)
    mean = [mean] * 3 if isinstance(mean, (int, float)) else (mean * 3 if len(mean) == 1 else mean)
    std = [std] * 3 if isinstance(std, (int, float)) else (std * 3 if len(std) == 1 else std)
    return dict(
        tile_h=size["height"], tile_w=size["width"],
        min_patches=get("min_patches", 1), max_patches=get("max_patches", 12),
        resample=get("resample", 3), do_resize=get("do_resize", True),
        do_rescale=get("do_rescale", True), rescale_factor=get("rescale_factor", 1 / 255),
        do_normalize=get("do_normalize", True), image_mean=mean, image_std=std,
        image_seq_length=(processor or {}).get("image_seq_length", 256),
    )


def load_config(model_dir):
    with open(os.path.join(model_dir, "preprocessor_config.json")) as f:
        pre = json.load(f)
    proc = {}
    p = os.path.join(model_dir, "processor_config.json")
    if os.path.exists(p):
        with open(p) as f:
            proc = json.load(f)
    return config_from(pre, proc)


# ---------------------------------------------------------------- tiling

def get_all_supported_aspect_ratios(min_image_tiles, max_image_tiles):
    ratios = []
    for width in range(1, max_image_tiles + 1):
        for height in range(1, max_image_tiles + 1):
            if min_image_tiles <= width * height <= max_image_tiles:
                ratios.append((width, height))
    return sorted(ratios, key=lambda x: x[0] * x[1])


def get_optimal_tiled_canvas(original_image_size, target_tile_size, min_image_tiles, max_image_tiles):
    possible = get_all_supported_aspect_ratios(min_image_tiles, max_image_tiles)
    original_height, original_width = original_image_size
    target_tile_height, target_tile_width = target_tile_size
    aspect_ratio = original_width / original_height
    area = original_width * original_height
    best_ratio_diff = float("inf")
    best_grid = (1, 1)
    for grid in possible:
        grid_aspect_ratio = grid[0] / grid[1]
        ratio_diff = abs(aspect_ratio - grid_aspect_ratio)
        if ratio_diff < best_ratio_diff:
            best_ratio_diff = ratio_diff
            best_grid = grid
        elif ratio_diff == best_ratio_diff:
            if area > 0.5 * target_tile_height * target_tile_width * grid[0] * grid[1]:
                best_grid = grid
    return best_grid


def plan(width, height, cfg):
    """(cols, rows, main_w, main_h, num_patches) as the processor decides them."""
    if cfg["max_patches"] > 1:
        cols, rows = get_optimal_tiled_canvas((height, width), (cfg["tile_h"], cfg["tile_w"]),
                                              cfg["min_patches"], cfg["max_patches"])
        n = cols * rows
        return cols, rows, cfg["tile_w"] * cols, cfg["tile_h"] * rows, n + (1 if n > 1 else 0)
    if cfg["do_resize"]:
        return 1, 1, cfg["tile_w"], cfg["tile_h"], 1
    return 1, 1, width, height, 1


# ---------------------------------------------------------------- pixels

def pil_resize(im, w, h, resample):
    if resample == 3:
        return ref.pillow_resize(im, w, h)
    if im.size == (w, h):
        return im.copy()
    return im.resize((w, h), resample, reducing_gap=None)


def rescale_normalize(chw, cfg):
    """image_transforms.rescale (float64 product, float32 result) then
    normalize ((x - mean) / std in float32, channels first)."""
    x = chw
    if cfg["do_rescale"]:
        x = (x.astype(np.float64) * cfg["rescale_factor"]).astype(np.float32)
    if cfg["do_normalize"]:
        if not np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float32)
        mean = np.array(cfg["image_mean"], dtype=x.dtype)
        std = np.array(cfg["image_std"], dtype=x.dtype)
        x = ((x.T - mean) / std).T
    return x.astype(np.float32)


def chw(im):
    return np.asarray(im).transpose(2, 0, 1)


def preprocess_image(im, cfg):
    """RGB PIL image -> (pixel_values [N, 3, H, W] float32, (cols, rows), main size)."""
    w, h = im.size
    cols, rows, mw, mh, n = plan(w, h, cfg)
    th, tw = cfg["tile_h"], cfg["tile_w"]
    if cfg["max_patches"] > 1:
        main = chw(pil_resize(im, mw, mh, cfg["resample"]))
        patches = []
        for i in range(cols * rows):
            c, r = i % cols, i // cols
            patches.append(main[:, r * th:(r + 1) * th, c * tw:(c + 1) * tw])
        if len(patches) != 1:
            patches.append(chw(pil_resize(im, tw, th, cfg["resample"])))
    else:
        patches = [chw(pil_resize(im, mw, mh, cfg["resample"]) if cfg["do_resize"] else im)]
    out = np.stack([rescale_normalize(p, cfg) for p in patches])
    assert out.shape[0] == n
    return np.ascontiguousarray(out), (cols, rows), (mw, mh)


def prompt(num_patches, cfg):
    return "<img>" + "<IMG_CONTEXT>" * (cfg["image_seq_length"] * num_patches) + "</img>"


# ---------------------------------------------------------------- hashes

def sha(b):
    return hashlib.sha256(b).hexdigest()


def result_line(pv, grid, main, cfg, dtypes=False):
    d = {"grid": list(grid), "size": list(main), "num_patches": int(pv.shape[0]),
         "shape": list(pv.shape), "tokens": cfg["image_seq_length"] * int(pv.shape[0]),
         "sha256": sha(pv.astype("<f4").tobytes())}
    if dtypes:
        d["sha256_bfloat16"] = sha(bf16_bits(pv.astype("<f4")).tobytes())
        d["sha256_float16"] = sha(pv.astype("<f2").tobytes())
    return d


# ---------------------------------------------------------------- synthesized images

def synth(w, h, seed):
    """Same samples as synth in the Go tests (and qwenvl_numpy.synth)."""
    return Image.fromarray(synth_array(w, h, seed), "RGB")


def exact_ties(cands):
    """Aspect ratios exactly midway between two neighbouring candidate
    ratios, as (p, q) with p/q the midpoint, where float64 sees the two
    distances as equal."""
    ratios = sorted({g[0] / g[1]: g for g in cands}.items())
    out = []
    for (a, ga), (b, gb) in zip(ratios, ratios[1:]):
        p, q = ga[0] * gb[1] + gb[0] * ga[1], 2 * ga[1] * gb[1]
        k = math.gcd(p, q)
        p, q = p // k, q // k
        m = p / q
        if abs(m - a) == abs(m - b):
            out.append((p, q))
    return out


def synth_sizes(tile_w, tile_h, min_patches, max_patches):
    """Sizes that reach every grid of the candidates, both sides of every
    tie threshold, exact ties between neighbouring ratios, and odd shapes."""
    cands = get_all_supported_aspect_ratios(min_patches, max_patches)
    thr = lambda g: 0.5 * tile_h * tile_w * g[0] * g[1]
    sizes = []
    groups = {}
    for g in cands:
        k = math.gcd(g[0], g[1])
        groups.setdefault((g[0] // k, g[1] // k), []).append(g)
    for (c0, r0), members in sorted(groups.items()):
        sizes.append((c0 * 3, r0 * 3))  # small: the group's first grid
        for g in members[1:]:
            s = math.isqrt(int(thr(g) / (c0 * r0)))
            while c0 * r0 * s * s <= thr(g):
                s += 1
            sizes.append((c0 * s, r0 * s))            # just over: g wins
            sizes.append((c0 * (s - 1), r0 * (s - 1)))  # just under: an earlier grid
    for p, q in exact_ties(cands):
        s = math.isqrt(int(thr((max_patches, 1)) / (p * q))) + 1
        sizes += [(p, q), (p * s, q * s)]
    sizes += [(1, 1), (1, 3), (3, 1), (2, 1), (1, 2), (tile_w, tile_h), (2 * tile_w, tile_h), (5000, 1),
              (1, 5000), (10, 5000), (4000, 30), (1001, 999), (999, 1001), (1919, 1081), (640, 1136)]
    seen, out = set(), []
    for s in sizes:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


CONFIGS = {
    # The checkpoint's own files.
    "internvl3": None,
    # Small tiles, at least 2 and at most 6 of them, the class mean/std.
    "tiles28_min2_max6": {"size": {"height": 28, "width": 28}, "min_patches": 2, "max_patches": 6,
                          "image_mean": None, "image_std": None},
    # Non-square tiles, 8 at most.
    "tiles40x24_max8": {"size": {"height": 24, "width": 40}, "max_patches": 8},
    # Tiling off: one resize to the tile size.
    "max1": {"size": 56, "max_patches": 1},
    # Tiling and resizing off: the image as it is.
    "max1_noresize": {"size": 56, "max_patches": 1, "do_resize": False},
    # Rescale only / normalize only.
    "rescale_only": {"size": 28, "max_patches": 4, "do_normalize": False},
    "normalize_only": {"size": 28, "max_patches": 4, "do_rescale": False},
}


def model_config(name):
    d = os.path.join(ROOT, "vision", "internvl", "testdata", "internvl3")
    if CONFIGS[name] is None:
        return load_config(d)
    with open(os.path.join(d, "preprocessor_config.json")) as f:
        pre = json.load(f)
    pre.update(CONFIGS[name])
    with open(os.path.join(d, "processor_config.json")) as f:
        proc = json.load(f)
    if name != "internvl3":
        proc = {"image_seq_length": 16}
    return config_from(pre, proc)


def corpus_images():
    """Yields (entry, image) per corpus file: entry is {"file": rel} with
    the loaded size, or with the loader's error kind and image None."""
    for rel in corpus_files():
        entry = {"file": rel}
        try:
            im = ref.load_image(os.path.join(ROOT, rel))
        except ref.PreprocessError as e:
            entry["error"] = e.kind
            yield entry, None
            continue
        entry["width"], entry["height"] = im.size
        print(rel, file=sys.stderr)
        yield entry, im


def corpus_files():
    """Every image of testdata/photos (and synth/) and media/testdata/corpus,
    less the corpus files the project's decoder refuses on purpose (marked
    known_unsupported in media/testdata/golden.json)."""
    with open(os.path.join(ROOT, "media", "testdata", "golden.json")) as f:
        skip = {c["file"] for c in json.load(f)["cases"] if c.get("known_unsupported")}
    out = []
    for base, sub in (("testdata/photos", ""), ("testdata/photos", "synth"), ("media/testdata", "corpus")):
        d = os.path.join(ROOT, base, sub)
        for name in sorted(os.listdir(d)):
            if name.endswith((".json", ".md")) or os.path.isdir(os.path.join(d, name)) or \
                    (sub == "corpus" and name in skip):
                continue
            out.append(os.path.join(base, sub, name) if sub else os.path.join(base, name))
    return out


def write_golden(out_path):
    cfg = model_config("internvl3")
    files = []
    for entry, im in corpus_images():
        if im is not None:
            pv, grid, main = preprocess_image(im, cfg)
            entry.update(result_line(pv, grid, main, cfg))
        files.append(entry)
    synthetic = []
    for name in CONFIGS:
        c = model_config(name)
        sizes = synth_sizes(c["tile_w"], c["tile_h"], c["min_patches"], max(c["max_patches"], 2))
        if name == "max1_noresize":
            sizes = [s for s in sizes if s[0] * s[1] <= 400000]
        for i, (w, h) in enumerate(sizes):
            pv, grid, main = preprocess_image(synth(w, h, i), c)
            d = {"config": name, "width": w, "height": h, "seed": i}
            d.update(result_line(pv, grid, main, c, dtypes=(i % 5 == 0)))
            synthetic.append(d)
        print(name, len(sizes), "sizes", file=sys.stderr)
    doc = {
        "generator": "scripts/golden/internvl_reference.py --write-golden",
        "versions": {"python": sys.version.split()[0], "pillow": Image.__version__, "numpy": np.__version__,
                     "transformers": "v5 GotOcr2ImageProcessorPil + InternVLProcessor (crop_to_patches=True)"},
        "configs": {k: (v if v is not None else "testdata/internvl3") for k, v in CONFIGS.items()},
        "files": files,
        "synthetic": synthetic,
    }
    write_lines(out_path, doc)


def write_lines(path, doc):
    """JSON with one line per list element, so that diffs stay readable."""
    with open(path, "w") as f:
        f.write("{\n")
        keys = list(doc)
        for i, k in enumerate(keys):
            v = doc[k]
            sep = "," if i < len(keys) - 1 else ""
            if isinstance(v, list):
                f.write(" %s: [\n" % json.dumps(k))
                f.write(",\n".join("  " + json.dumps(e) for e in v))
                f.write("\n ]%s\n" % sep)
            else:
                f.write(" %s: %s%s\n" % (json.dumps(k), json.dumps(v), sep))
        f.write("}\n")


def image_processor(model_dir):
    """The per-image function of the command line: RGB image -> result fields."""
    cfg = load_config(model_dir)

    def one(im):
        pv, grid, main_size = preprocess_image(im, cfg)
        return result_line(pv, grid, main_size, cfg)
    return one


def cli(doc, default_model, write_golden_to, processor, *errors):
    """The command line both family references share: --write-golden OUT, or
    one JSON line per FILE (like `mmgate preprocess`, sha256 with --hash):
    processor(model_dir)(image)'s fields, or the kind of the loader's or the
    processor's refusal (the exception classes in errors)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=default_model)
    ap.add_argument("--hash", action="store_true")
    ap.add_argument("--write-golden", metavar="OUT")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.write_golden:
        write_golden_to(a.write_golden)
        return
    one = processor(a.model)
    for path in a.files:
        try:
            d = dict({"file": path}, **one(ref.load_image(path)))
        except (ref.PreprocessError,) + errors as e:
            d = {"file": path, "error": e.kind}
        if not a.hash:
            d.pop("sha256", None)
        print(json.dumps(d))


if __name__ == "__main__":
    cli(__doc__, os.path.join(ROOT, "vision", "internvl", "testdata", "internvl3"), write_golden, image_processor)
