#!/usr/bin/python3
"""Reference LLaVA-NeXT (anyres) image preprocessing and prompt expansion.

Re-implements, with Pillow and NumPy, transformers v5's
`LlavaNextImageProcessorPil` (models/llava_next/image_processing_pil_llava_next.py,
with select_best_resolution / get_patch_output_size of
image_processing_utils.py and divide_to_patches of image_transforms.py) and
the image-token count of `LlavaNextProcessor` (processing_llava_next.py),
fed by vLLM's media loader (reference_preprocess.load_image):

  - configuration: the CLIP fields of preprocessor_config.json over the
    class defaults (clip_reference.image_config) plus image_grid_pinpoints;
    the LLaVA prompt settings (clip_reference.prompt_config);
  - per image: the best-fit pinpoint (most effective pixels, then least
    waste, first listed on ties); a resize keeping the aspect ratio (ceil of
    the float products); zero padding in uint8 (top/left the quotient,
    bottom/right quotient + remainder); tiles of crop_size row by row; the
    whole image resized straight to (shortest_edge, shortest_edge) first;
    then every view through the CLIP steps (resize to the shortest edge,
    center crop, rescale, normalize); pixel_values [1, 1 + tiles, 3, H, W]
    and image_sizes [[h, w]];
  - prompt: <image> repeated unpadded + newlines + base tokens, with
    int(round(x, 7)) in the unpadding as upstream writes it.

Run with Debian's /usr/bin/python3 (Pillow 9.4.0, NumPy 1.24.2):

    llavanext_reference.py [--model DIR] [--hash] FILE...
    llavanext_reference.py --write-golden vision/llavanext/testdata/golden.json
"""

import os
import sys

import numpy as np

import clip_reference as C
import hf_pil as H

MODEL_DIR = os.path.join(H.ROOT, "vision", "llavanext", "testdata", "llava-next")
DEFAULT_PINPOINTS = [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]]


def load_config(model_dir, overrides=None):
    pp = H.read_json(model_dir, "preprocessor_config.json")
    pp.update(overrides or {})
    cfg = C.image_config(pp)
    cfg["image_grid_pinpoints"] = H.resolve(pp, "image_grid_pinpoints", DEFAULT_PINPOINTS)
    cfg.update(C.prompt_config(model_dir))
    return cfg


def select_best_resolution(original_size, possible_resolutions):
    original_height, original_width = original_size
    best_fit = None
    max_effective = 0
    min_wasted = float("inf")
    for height, width in possible_resolutions:
        scale = min(width / original_width, height / original_height)
        dw, dh = int(original_width * scale), int(original_height * scale)
        effective = min(dw * dh, original_width * original_height)
        wasted = (width * height) - effective
        if effective > max_effective or (effective == max_effective and wasted < min_wasted):
            max_effective = effective
            min_wasted = wasted
            best_fit = (height, width)
    return best_fit


def get_patch_output_size(h, w, target):
    import math
    th, tw = target
    scale_w = tw / w
    scale_h = th / h
    if scale_w < scale_h:
        return min(math.ceil(h * scale_w), th), tw
    return th, min(math.ceil(w * scale_h), tw)


def pad_for_patching(chw, target):
    th, tw = target
    nh, nw = chw.shape[-2:]
    px, rx = divmod(tw - nw, 2)
    py, ry = divmod(th - nh, 2)
    return np.pad(chw, ((0, 0), (py, py + ry), (px, px + rx)), mode="constant", constant_values=0)


def divide_to_patches(chw, ps):
    h, w = chw.shape[-2:]
    return [chw[:, i:i + ps, j:j + ps] for i in range(0, h, ps) for j in range(0, w, ps)]


def views_of(chw, cfg):
    """get_image_patches: the whole image resized to size_tuple, then the tiles."""
    size, crop = cfg["size"], cfg["crop_size"]
    if size.get("height") and size.get("width"):
        size_tuple = (size["height"], size["width"])
    else:
        size_tuple = (size["shortest_edge"], size["shortest_edge"])
    patch = crop["height"] if crop and crop.get("height") else (size.get("height") or size["shortest_edge"])
    best = select_best_resolution(chw.shape[-2:], cfg["image_grid_pinpoints"])
    nh, nw = get_patch_output_size(chw.shape[-2], chw.shape[-1], best)
    padded = pad_for_patching(H.resize(chw, nh, nw, cfg["resample"]), best)
    base = H.resize(chw, size_tuple[0], size_tuple[1], cfg["resample"])
    return [base] + divide_to_patches(padded, patch)


def unpadded_features(height, width, ph, pw, sh, sw):
    ch, cw = ph * sh, pw * sw
    if width / height > cw / ch:
        new_height = int(round(height * (cw / width), 7))
        ch -= ((ch - new_height) // 2) * 2
    else:
        new_width = int(round(width * (ch / height), 7))
        cw -= ((cw - new_width) // 2) * 2
    return ch * cw, ch


def image_tokens(cfg, orig_h, orig_w, height, width):
    bh, bw = select_best_resolution([orig_h, orig_w], cfg["image_grid_pinpoints"])
    sh, sw = bh // height, bw // width
    ph, pw = height // cfg["patch_size"], width // cfg["patch_size"]
    unpadded, newlines = unpadded_features(orig_h, orig_w, ph, pw, sh, sw)
    n = unpadded + newlines + ph * pw + cfg["num_additional_image_tokens"]
    if cfg["strategy"] == "default":
        n -= 1
    return n


def preprocess(rgb, cfg):
    chw = H.to_chw(rgb)
    views = views_of(chw, cfg)
    pv = np.array([C.clip_view(v, cfg) for v in views]).astype(np.float32)[np.newaxis]
    h, w = chw.shape[-2:]
    return pv, image_tokens(cfg, h, w, pv.shape[-2], pv.shape[-1]), [[h, w]]


def result(rgb, cfg):
    pv, n, sizes = preprocess(rgb, cfg)
    return pv, {"tokens": n, "image_sizes": sizes}, cfg["image_token"] * n


VARIANTS = {
    "default": {},
    # Pinpoints that are not multiples of the tile: edge tiles go through
    # the CLIP resize and crop; a 3x1 grid.
    "odd_pinpoints": {"image_grid_pinpoints": [[336, 500], [500, 336], [400, 1008]]},
}

# Every pinpoint of the published list, the first-listed tie rule (small
# images), both unpadding branches, sizes where int(round(x, 7)) and int(x)
# differ (1128x47, 176x55, 55x88, 99x88), odd padding splits, tiny images,
# sizes no pinpoint keeps a pixel of (the first listed wins).
SYNTH = [(1, 1), (1, 3), (3, 1), (100, 100), (1600, 800), (800, 1600), (1000, 1000), (3000, 1000),
         (1000, 3000), (672, 336), (336, 672), (500, 333), (333, 500), (1128, 47), (176, 55), (55, 88),
         (99, 88), (47, 47), (2000, 1500), (700, 1500), (1500, 350), (1, 1009), (2000, 1)]

# Python's int(round(x, 7)) on values near the boundaries.
ROUND7 = [29.999999999999996, 2.9999999999999996, 5.99999995, 5.9999999499999995, 5.999999950000001,
          7.00000005, 12.5, 0.49999999999999994, 335.99999999, 335.9999999, 1e-9, 4503599627370495.5]


def write_golden(out):
    cfgs = {k: load_config(MODEL_DIR, v) for k, v in VARIANTS.items()}
    for v, cfg in cfgs.items():
        chosen = {select_best_resolution((h, w), cfg["image_grid_pinpoints"]) for w, h in SYNTH}
        assert chosen == {tuple(p) for p in cfg["image_grid_pinpoints"]}, (v, chosen)
    H.write_golden(out, "llavanext", result, cfgs, VARIANTS, SYNTH,
                   extra={"round7": [[x, int(round(x, 7))] for x in ROUND7]})


if __name__ == "__main__":
    sys.exit(H.cli(sys.argv[1:], __doc__, MODEL_DIR, load_config, result, write_golden))
