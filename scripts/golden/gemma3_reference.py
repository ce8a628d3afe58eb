#!/usr/bin/python3
"""Reference Gemma 3 image preprocessing and prompt expansion.

Re-implements, with Pillow and NumPy, transformers v5's
`Gemma3ImageProcessorPil` (models/gemma3/image_processing_pil_gemma3.py) and
the image part of `Gemma3Processor` (processing_gemma3.py), fed by vLLM's
media loader (reference_preprocess.load_image):

  - configuration: preprocessor_config.json over the class defaults (size
    224x224, BILINEAR, mean/std 0.5); pan-and-scan values that are null take
    the processor defaults of Gemma3ProcessorKwargs (do_pan_and_scan False,
    min crop 256, at most 4 crops, ratio 1.2), as vLLM resolves them;
    image_seq_length from processor_config.json (default 256); the boi / eoi /
    image tokens from tokenizer_config.json;
  - per image: pan_and_scan crops of the uint8 channels-first array (none
    when off), then for the original and each crop: resize to size (PIL,
    exact size), rescale (float64 -> float32), normalize (float32);
    pixel_values stacks the views: [1 + crops, 3, H, W];
  - prompt: the processor's replacement of one boi token (replace_image_token
    with full_image_sequence).

Run with Debian's /usr/bin/python3 (Pillow 9.4.0, NumPy 1.24.2):

    gemma3_reference.py [--model DIR] [--pan-and-scan] [--hash] FILE...
    gemma3_reference.py --write-golden vision/gemma3/testdata/golden.json
"""

import math
import os
import sys

import numpy as np
from PIL import Image

import hf_pil as H

MODEL_DIR = os.path.join(H.ROOT, "vision", "gemma3", "testdata", "gemma3")


def load_config(model_dir, overrides=None):
    """The resolved processor settings of a model folder, with overrides
    applied to preprocessor_config.json's values first."""
    pp = H.read_json(model_dir, "preprocessor_config.json")
    pp.update(overrides or {})
    pc = H.read_json(model_dir, "processor_config.json")
    tc = H.read_json(model_dir, "tokenizer_config.json")
    r = lambda k, d: H.resolve(pp, k, d)
    return {
        "do_resize": r("do_resize", True),
        "size": H.size_dict(pp.get("size"), True, {"height": 224, "width": 224}),
        "resample": r("resample", Image.BILINEAR),
        "do_rescale": r("do_rescale", True),
        "rescale_factor": r("rescale_factor", 1 / 255),
        "do_normalize": r("do_normalize", True),
        "image_mean": r("image_mean", H.IMAGENET_STANDARD_MEAN),
        "image_std": r("image_std", H.IMAGENET_STANDARD_STD),
        "do_pan_and_scan": r("do_pan_and_scan", False),
        "pan_and_scan_min_crop_size": r("pan_and_scan_min_crop_size", 256),
        "pan_and_scan_max_num_crops": r("pan_and_scan_max_num_crops", 4),
        "pan_and_scan_min_ratio_to_activate": r("pan_and_scan_min_ratio_to_activate", 1.2),
        "image_seq_length": pc.get("image_seq_length", 256),
        "boi_token": tc["boi_token"],
        "eoi_token": tc["eoi_token"],
        "image_token": tc["image_token"],
    }


def pan_and_scan(image, min_crop, max_crops, min_ratio):
    """Gemma3ImageProcessorPil.pan_and_scan on a channels-first array."""
    height, width = image.shape[-2:]
    long, short = (width, height) if width >= height else (height, width)
    # Only apply when the image is exaggerated enough.
    if long / short < min_ratio:
        return []
    # Crops along the long side: half-up rounding of the ratio, at most
    # long / min_crop, then clamped to [2, max_crops].
    n = int(math.floor(long / short + 0.5))
    n = min(int(math.floor(long / min_crop)), n)
    n = min(max_crops, max(2, n))
    num_crops_w, num_crops_h = (n, 1) if width >= height else (1, n)
    crop_w = int(math.ceil(width / num_crops_w))
    crop_h = int(math.ceil(height / num_crops_h))
    if min(crop_w, crop_h) < min_crop:
        return []
    pos_w = [crop_w * i for i in range(num_crops_w)]
    pos_h = [crop_h * i for i in range(num_crops_h)]
    return [image[:, ph:ph + crop_h, pw:pw + crop_w] for ph in pos_h for pw in pos_w]


def preprocess(rgb, cfg):
    """pixel_values (float32 [1 + crops, 3, H, W]) and num_crops of one
    RGB image (PIL or H x W x 3 uint8)."""
    image = H.to_chw(rgb)
    crops = []
    if cfg["do_pan_and_scan"]:
        crops = pan_and_scan(image, cfg["pan_and_scan_min_crop_size"], cfg["pan_and_scan_max_num_crops"],
                             cfg["pan_and_scan_min_ratio_to_activate"])
    views = []
    for v in [image] + crops:
        if cfg["do_resize"]:
            v = H.backend_resize(v, cfg["size"], cfg["resample"])
        if cfg["do_rescale"]:
            v = H.rescale(v, cfg["rescale_factor"])
        if cfg["do_normalize"]:
            v = H.normalize(v, cfg["image_mean"], cfg["image_std"])
        views.append(v)
    return np.stack(views).astype(np.float32), len(crops)


def replacement(cfg, num_crops):
    """Gemma3Processor.replace_image_token: what one boi token becomes."""
    full = "\n\n%s%s%s\n\n" % (cfg["boi_token"], cfg["image_token"] * cfg["image_seq_length"], cfg["eoi_token"])
    if num_crops > 0:
        return ("Here is the original image %s and here are some crops to help you see better " % full
                + " ".join([full] * num_crops))
    return full


def result(rgb, cfg):
    pv, n = preprocess(rgb, cfg)
    return pv, {"tokens": cfg["image_seq_length"] * (1 + n), "num_crops": n}, replacement(cfg, n)


# Config variants the goldens cover, as preprocessor_config.json overrides.
VARIANTS = {
    "default": {},
    "pan_and_scan": {"do_pan_and_scan": True},
    "pan_and_scan_custom": {"do_pan_and_scan": True, "pan_and_scan_min_crop_size": 128,
                            "pan_and_scan_max_num_crops": 3, "pan_and_scan_min_ratio_to_activate": 1.5},
}
FILE_VARIANTS = ("default", "pan_and_scan")

# Synthesized sizes (width, height): the ratio threshold (under, at), 0 / 2 /
# 3 / 4 crops and the cap, crops refused for a short side or a small crop,
# a last crop narrower than the others, portrait twins, tiny images.
SYNTH = [(1, 1), (1, 3), (3, 1), (896, 896), (1000, 900), (1199, 1000), (1200, 1000), (1600, 1000),
         (2600, 1000), (4000, 1000), (6000, 1000), (500, 400), (700, 200), (1100, 300), (1001, 300),
         (767, 256), (512, 256), (511, 256), (1000, 1200), (1000, 1600), (1000, 2600), (1000, 4000),
         (300, 1100), (300, 1001), (256, 511), (40, 2000)]


def write_golden(out):
    cfgs = {k: load_config(MODEL_DIR, v) for k, v in VARIANTS.items()}
    doc = H.write_golden(out, "gemma3", result, cfgs, VARIANTS, SYNTH, file_variants=FILE_VARIANTS)
    crops = {c["num_crops"] for s in doc["synth"] for c in s["cases"]}
    assert crops == {0, 2, 3, 4}, crops


if __name__ == "__main__":
    sys.exit(H.cli(sys.argv[1:], __doc__, MODEL_DIR, load_config, result, write_golden,
                   flags=[("pan-and-scan", {"do_pan_and_scan": True})]))
