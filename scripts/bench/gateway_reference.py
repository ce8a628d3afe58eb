#!/usr/bin/python3
"""The Python reference rate for `mmgate bench gateway`.

Loads and preprocesses images for Qwen3-VL in one process, one after
another, the way vLLM's media loader and the Hugging Face slow image
processor would on a request carrying the image as a base64 data: URL:
base64 decode, Pillow open + EXIF transpose + convert("RGB"), smart_resize,
BICUBIC resize, rescale/normalize, patchify. The pipeline is the project's
reference implementation, scripts/golden/reference_preprocess.py, used as a
library. File reading and base64 encoding (the client's work) and imports
happen before timing; one untimed image warms the process up.

Prints one JSON object: images, seconds, images_per_second, and the mean
milliseconds per image of each stage.

Usage: gateway_reference.py [--model qwen3-vl|MODEL_DIR] [--limit N] IMAGE_DIR
Run with Debian's /usr/bin/python3 (Pillow 9.4.0, NumPy 1.24.2).
"""

import argparse
import base64
import io
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "golden"))

import reference_preprocess as ref  # noqa: E402

EXTS = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".bmp", ".tif", ".tiff")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="qwen3-vl",
                    help="preset name or model directory with preprocessor_config.json")
    ap.add_argument("--limit", type=int, default=0, help="use at most N images (0: all)")
    ap.add_argument("images")
    a = ap.parse_args(argv)

    cfg = ref.load_config(a.model)
    names = sorted(n for n in os.listdir(a.images)
                   if n.lower().endswith(EXTS) and os.path.isfile(os.path.join(a.images, n)))
    if a.limit > 0:
        names = names[:a.limit]
    if not names:
        sys.exit("gateway_reference.py: no images in %s" % a.images)
    payloads = []
    for n in names:
        with open(os.path.join(a.images, n), "rb") as f:
            payloads.append(base64.b64encode(f.read()))

    def one(payload):
        t0 = time.perf_counter()
        raw = base64.b64decode(payload)
        im = ref.load_image(io.BytesIO(raw))
        t1 = time.perf_counter()
        r = ref.preprocess_image(im, cfg)
        return (t1 - t0) * 1e3, r

    one(payloads[0])  # warm-up, untimed

    stages = {"decode": 0.0, "resize": 0.0, "normalize_patchify": 0.0}
    grids = set()
    start = time.perf_counter()
    for p in payloads:
        dec, r = one(p)
        stages["decode"] += dec
        stages["resize"] += r.timings["resize"]
        stages["normalize_patchify"] += r.timings["normalize_patchify"]
        grids.add("x".join(str(g) for g in r.grid_thw))
    seconds = time.perf_counter() - start

    n = len(payloads)
    print(json.dumps({
        "images": n,
        "seconds": round(seconds, 4),
        "images_per_second": round(n / seconds, 3),
        "stage_mean_ms": {k: round(v / n, 3) for k, v in stages.items()},
        "grids": sorted(grids),
        "model": a.model,
        "min_pixels": cfg["min_pixels"],
        "max_pixels": cfg["max_pixels"],
        "patch_size": cfg["patch_size"],
        "merge_size": cfg["merge_size"],
        "temporal_patch_size": cfg["temporal_patch_size"],
    }))


if __name__ == "__main__":
    main()
