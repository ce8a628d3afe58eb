#!/usr/bin/python3
"""Reference CLIP image preprocessing and LLaVA-1.5 prompt expansion.

Re-implements, with Pillow and NumPy, transformers v5's `CLIPImageProcessorPil`
(models/clip/image_processing_pil_clip.py: the PilBackend steps) and the
image-token count of `LlavaProcessor` (models/llava/processing_llava.py), fed
by vLLM's media loader (reference_preprocess.load_image):

  - configuration: preprocessor_config.json over the class defaults (size
    {shortest_edge: 224}, crop 224x224, BICUBIC, OpenAI CLIP mean/std);
    patch_size, vision_feature_select_strategy, num_additional_image_tokens
    from processor_config.json (patch size and strategy falling back to
    config.json); the image token from tokenizer_config.json;
  - per image (PilBackend._preprocess): resize (shortest edge, aspect kept,
    or an exact size), center crop (zero padding where the image is
    smaller), rescale (float64 -> float32), normalize (float32);
    pixel_values is [1, 3, crop_h, crop_w];
  - prompt: <image> repeated (h // patch) * (w // patch) +
    num_additional_image_tokens, minus one for the "default" strategy.

Run with Debian's /usr/bin/python3 (Pillow 9.4.0, NumPy 1.24.2):

    clip_reference.py [--model DIR] [--hash] FILE...
    clip_reference.py --write-golden vision/clip/testdata/golden.json
"""

import os
import sys

import numpy as np
from PIL import Image

import hf_pil as H

MODEL_DIR = os.path.join(H.ROOT, "vision", "clip", "testdata", "llava-1.5")


def image_config(pp):
    """CLIPImageProcessor settings from a preprocessor_config.json dict."""
    r = lambda k, d: H.resolve(pp, k, d)
    return {
        "do_resize": r("do_resize", True),
        "size": H.size_dict(pp.get("size"), False, {"shortest_edge": 224}),
        "resample": r("resample", Image.BICUBIC),
        "do_center_crop": r("do_center_crop", True),
        "crop_size": H.size_dict(pp.get("crop_size"), True, {"height": 224, "width": 224}),
        "do_rescale": r("do_rescale", True),
        "rescale_factor": r("rescale_factor", 1 / 255),
        "do_normalize": r("do_normalize", True),
        "image_mean": r("image_mean", H.OPENAI_CLIP_MEAN),
        "image_std": r("image_std", H.OPENAI_CLIP_STD),
    }


def prompt_config(model_dir):
    """LlavaProcessor settings of a model folder."""
    pc = H.read_json(model_dir, "processor_config.json")
    tc = H.read_json(model_dir, "tokenizer_config.json")
    mc = H.read_json(model_dir, "config.json")
    return {
        "patch_size": pc.get("patch_size") or mc.get("vision_config", {}).get("patch_size"),
        "strategy": pc.get("vision_feature_select_strategy") or mc.get("vision_feature_select_strategy") or "default",
        "num_additional_image_tokens": pc.get("num_additional_image_tokens", 0),
        "image_token": tc.get("image_token") or "<image>",
    }


def load_config(model_dir, overrides=None):
    pp = H.read_json(model_dir, "preprocessor_config.json")
    pp.update(overrides or {})
    cfg = image_config(pp)
    cfg.update(prompt_config(model_dir))
    return cfg


def clip_view(chw, cfg):
    """PilBackend._preprocess of one channels-first uint8 image."""
    if cfg["do_resize"]:
        chw = H.backend_resize(chw, cfg["size"], cfg["resample"])
    if cfg["do_center_crop"]:
        chw = H.center_crop(chw, cfg["crop_size"]["height"], cfg["crop_size"]["width"])
    if cfg["do_rescale"]:
        chw = H.rescale(chw, cfg["rescale_factor"])
    if cfg["do_normalize"]:
        chw = H.normalize(chw, cfg["image_mean"], cfg["image_std"])
    return chw


def image_tokens(cfg, height, width):
    """LlavaProcessor's count for a processed view of height x width."""
    p = cfg["patch_size"]
    n = (height // p) * (width // p) + cfg["num_additional_image_tokens"]
    if cfg["strategy"] == "default":
        n -= 1
    return n


def preprocess(rgb, cfg):
    """pixel_values (float32 [1, 3, H, W]) and the token count."""
    pv = np.stack([clip_view(H.to_chw(rgb), cfg)]).astype(np.float32)
    return pv, image_tokens(cfg, pv.shape[-2], pv.shape[-1])


def result(rgb, cfg):
    pv, n = preprocess(rgb, cfg)
    return pv, {"tokens": n}, cfg["image_token"] * n


VARIANTS = {
    "default": {},
    # A crop larger than the resized short side: center_crop pads (odd split).
    "crop_pad": {"size": {"shortest_edge": 200}, "crop_size": {"height": 336, "width": 301}},
    # An exact resize without a crop.
    "exact_no_crop": {"size": {"height": 224, "width": 336}, "do_center_crop": False},
}

SYNTH = [(1, 1), (1, 3), (3, 1), (336, 336), (337, 336), (336, 337), (500, 336), (336, 500), (1000, 335),
         (335, 1000), (640, 480), (480, 640), (2, 401), (401, 2), (333, 777), (1234, 999)]


def write_golden(out):
    cfgs = {k: load_config(MODEL_DIR, v) for k, v in VARIANTS.items()}
    H.write_golden(out, "clip", result, cfgs, VARIANTS, SYNTH)


if __name__ == "__main__":
    sys.exit(H.cli(sys.argv[1:], __doc__, MODEL_DIR, load_config, result, write_golden))
