#!/usr/bin/python3
"""Golden data for package imaging/resample.

Run with Debian's Python (Pillow 9.4.0, NumPy 1.24):

    /usr/bin/python3 scripts/golden/resample_pillow.py > imaging/resample/testdata/pillow_golden.json

Every input image is rebuilt from (pattern, seed, size) by the Go tests
(pattern_test.go implements the same formulas). For each case the file holds
the sha256 of the RGB bytes Pillow returns:

* "sha256": the result of current Pillow (>= 12.2). Where the tall-image rule
  applies (H_in > 100*W_in and H_out < H_in) it is built as that rule
  specifies, with two Pillow calls: a vertical-only resize to W_in x H_out,
  then a horizontal-only resize of that result.
* "sha256_no_tall": only on tall cases, the single-call result of Pillow 9.4.

"tables" holds sha256 digests of coefficient tables computed in Python
(float64 with the C library's sin/cos, as Pillow's Resample.c does), to
catch last-bit differences in HAMMING and LANCZOS weights over many sizes.
"""

import hashlib
import json
import math
import random
import struct
import sys

import numpy as np
import PIL
from PIL import Image

FILTERS = {
    "nearest": Image.NEAREST,
    "lanczos": Image.LANCZOS,
    "bilinear": Image.BILINEAR,
    "bicubic": Image.BICUBIC,
    "box": Image.BOX,
    "hamming": Image.HAMMING,
}

U = np.uint64


def mix(seed, i):
    """SplitMix64 finalizer of (seed << 32) ^ i over a uint64 array i."""
    with np.errstate(over="ignore"):
        z = (U(seed) << U(32)) ^ i
        z = z + U(0x9E3779B97F4A7C15)
        z = (z ^ (z >> U(30))) * U(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U(27))) * U(0x94D049BB133111EB)
        return z ^ (z >> U(31))


def pattern_image(w, h, pattern, seed):
    y, x, c = np.meshgrid(np.arange(h, dtype=U), np.arange(w, dtype=U), np.arange(3, dtype=U), indexing="ij")
    px = y * U(w) + x
    i = px * U(3) + c
    if pattern == "noise":
        v = mix(seed, i) >> U(24)
    elif pattern == "edges":
        bw, bh = 2 + seed % 7, 2 + (seed // 7) % 7
        b = mix(seed, ((y // U(bh)) * U(65536) + x // U(bw)) * U(3) + c)
        v = np.where(b % U(3) == U(0), U(0), np.where(b % U(3) == U(1), U(255), b >> U(24)))
    elif pattern == "binary":
        v = ((mix(seed, px) >> U(24)) & U(1)) * U(255)
    elif pattern == "synthetic":
        v = x * U(3) + y * U(2) + c * U(85) + (((x >> U(4)) ^ (y >> U(4))) & U(1)) * U(96) + ((mix(seed, i) >> U(24)) & U(31))
    else:
        raise ValueError(pattern)
    return Image.fromarray((v & U(255)).astype(np.uint8), "RGB")


def digest(im):
    return hashlib.sha256(im.tobytes()).hexdigest()


def is_tall(w_in, h_in, h_out):
    return h_in > 100 * w_in and h_out < h_in


def golden(case):
    im = pattern_image(case["w_in"], case["h_in"], case["pattern"], case["seed"])
    f = FILTERS[case["filter"]]
    size = (case["w_out"], case["h_out"])
    old = im.resize(size, f)
    if is_tall(case["w_in"], case["h_in"], case["h_out"]):
        new = im.resize((case["w_in"], case["h_out"]), f).resize(size, f)
        case["sha256"] = digest(new)
        case["sha256_no_tall"] = digest(old)
    else:
        case["sha256"] = digest(old)
    return case


def cases():
    rnd = random.Random(20261130)
    out = []

    def add(name, w_in, h_in, w_out, h_out, filt, pattern, seed=None):
        if seed is None:
            seed = rnd.randrange(1, 1 << 31)
        out.append(dict(name=name, pattern=pattern, seed=seed, w_in=w_in, h_in=h_in,
                        w_out=w_out, h_out=h_out, filter=filt))

    def size():
        r = rnd.random()
        if r < 0.3:
            return rnd.randint(1, 12)
        return rnd.randint(1, 200)

    names = list(FILTERS)
    patterns = ["noise", "edges", "binary"]
    for k in range(420):
        add("random%03d" % k, size(), size(), size(), size(), names[k % 6], patterns[(k // 6) % 3])
    # Single rows and columns.
    k = 0
    for w_in, h_in, w_out, h_out in [(1, 57, 1, 20), (57, 1, 13, 1), (1, 1, 5, 7), (200, 1, 1, 200),
                                     (1, 200, 3, 1), (1, 9, 1, 31), (9, 1, 31, 1), (2, 1, 1, 1), (1, 2, 1, 1)]:
        for f in names:
            add("line%02d_%s" % (k, f), w_in, h_in, w_out, h_out, f, patterns[k % 3])
        k += 1
    # Tall images: vertical first in Pillow >= 12.2.
    for w_in, h_in, w_out, h_out in [(2, 250, 1, 100), (3, 400, 2, 150), (1, 150, 1, 60), (2, 201, 3, 100),
                                     (1, 101, 2, 100), (2, 250, 2, 100), (3, 301, 4, 301), (1, 180, 4, 90)]:
        for f in names:
            add("tall%02d_%s" % (k, f), w_in, h_in, w_out, h_out, f, patterns[k % 3])
        k += 1
    # Large images from the synthetic pattern.
    for w_in, h_in, w_out, h_out, f in [
        (1000, 750, 1008, 756, "bicubic"),
        (1920, 1080, 1288, 728, "bicubic"),
        (2560, 1600, 2548, 1596, "bicubic"),
        (2560, 1600, 1260, 784, "bicubic"),
        (1280, 960, 1288, 952, "bicubic"),
        (640, 480, 644, 476, "bicubic"),
        (123, 4567, 28, 1036, "bicubic"),
        (3000, 20, 2996, 28, "bicubic"),
        (57, 41, 56, 56, "bicubic"),
        (30, 6000, 28, 5992, "bicubic"),
        (30, 5000, 32, 4992, "bicubic"),
        (33, 600, 28, 588, "bicubic"),
        (1920, 1080, 400, 225, "lanczos"),
        (1920, 1080, 333, 1500, "hamming"),
        (777, 555, 1500, 64, "bilinear"),
        (1001, 999, 97, 1013, "box"),
        (1000, 750, 1008, 756, "nearest"),
    ]:
        add("large_%dx%d_%dx%d_%s" % (w_in, h_in, w_out, h_out, f), w_in, h_in, w_out, h_out, f, "synthetic")
    return out


# Coefficient tables, a direct transcription of docs/preprocessing.md
# ("Coefficient tables").

def bicubic(x):
    a = -0.5
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1
    if x < 2.0:
        return (((x - 5) * x + 8) * x - 4) * a
    return 0.0


def box(x):
    return 1.0 if -0.5 < x <= 0.5 else 0.0


def bilinear(x):
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


F054 = struct.unpack("f", struct.pack("f", 0.54))[0]
F046 = struct.unpack("f", struct.pack("f", 0.46))[0]


def hamming(x):
    x = abs(x)
    if x == 0.0:
        return 1.0
    if x >= 1.0:
        return 0.0
    x = x * math.pi
    return math.sin(x) / x * (F054 + F046 * math.cos(x))


def sinc(x):
    if x == 0.0:
        return 1.0
    x = x * math.pi
    return math.sin(x) / x


def lanczos(x):
    if -3.0 <= x < 3.0:
        return sinc(x) * sinc(x / 3)
    return 0.0


KERNELS = {"box": (0.5, box), "bilinear": (1.0, bilinear), "hamming": (1.0, hamming),
           "bicubic": (2.0, bicubic), "lanczos": (3.0, lanczos)}


def table_bytes(n_in, n_out, filt):
    support, k = KERNELS[filt]
    scale = n_in / n_out
    fscale = max(scale, 1.0)
    sup = support * fscale
    inv = 1.0 / fscale
    b = bytearray()
    for i in range(n_out):
        center = (i + 0.5) * scale
        lo = max(int(center - sup + 0.5), 0)
        hi = min(int(center + sup + 0.5), n_in)
        ws = [k((lo + j - center + 0.5) * inv) for j in range(hi - lo)]
        total = 0.0
        for w in ws:
            total += w
        if total != 0.0:
            ws = [w / total for w in ws]
        q = [int(-0.5 + w * (1 << 22)) if w < 0 else int(0.5 + w * (1 << 22)) for w in ws]
        b += struct.pack("<ii", lo, hi - lo) + struct.pack("<%di" % len(q), *q)
    return bytes(b)


def tables():
    out = []
    for filt in KERNELS:
        for n_in in range(1, 65):
            h = hashlib.sha256()
            for n_out in range(1, 65):
                h.update(table_bytes(n_in, n_out, filt))
            out.append(dict(filter=filt, n_in=n_in, n_out_max=64, sha256=h.hexdigest()))
        for n_in, n_out in [(2560, 2548), (1600, 1596), (2560, 1260), (1600, 784), (1920, 400), (1080, 225),
                            (1000, 756), (4567, 1036), (1080, 1500), (6000, 5992), (999, 1013), (555, 64)]:
            out.append(dict(filter=filt, n_in=n_in, n_out=n_out,
                            sha256=hashlib.sha256(table_bytes(n_in, n_out, filt)).hexdigest()))
    return out


def main():
    doc = {
        "generator": "scripts/golden/resample_pillow.py",
        "pillow_version": PIL.__version__,
        "numpy_version": np.__version__,
        "cases": [golden(c) for c in cases()],
        "tables": tables(),
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
