#!/usr/bin/python3
"""Make a directory of distinct 1280x960 JPEG photos for `mmgate bench gateway`.

Each output is a 4:3 crop window of one of the photographs under
/usr/share/backgrounds (Debian wallpaper packages), or, where those packages
are not installed, of the repository's copies of some of them
(testdata/photos, provenance in its README), at its own offset and
scale, resized to 1280x960 with Pillow's LANCZOS filter and saved as a
baseline JPEG (quality 90, 4:2:0 chroma subsampling). The same arguments
give the same files; every file differs from the others (checked).

Usage: gateway_images.py [--count N] [--size 1280x960] [--quality 90] OUT_DIR
Run with Debian's /usr/bin/python3 (Pillow).
"""

import argparse
import hashlib
import os
import sys

from PIL import Image

SOURCE_ROOT = "/usr/share/backgrounds"
REPO_PHOTOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "photos")
MAX_SOURCES = 16
# Crop scales (fraction of the largest 4:3 window that fits the photo),
# cycled per pass over the photos.
SCALES = [1.0, 0.82, 0.67, 0.55, 0.9, 0.74, 0.6, 0.5]
GOLDEN = 0.6180339887498949


# The photographs among the Debian wallpapers (the illustrations and
# abstract renders are left out), relative to SOURCE_ROOT.
PHOTOS = [
    "Bridge_by_Sander_Klootwijk.jpg", "Dragonfly_by_Bolly.jpg",
    "Kleiber_by_Lukas_Baubkus.jpg", "Picture_0B_by_freespace.jpg",
    "Picture_1A_by_freespace.jpg", "Wine_by_Jakkub_Mede.jpg",
    "aitzgorri_by_Aitzol_Berasategi.jpg", "free_by_Peter_Nerlich.jpg",
    "friends_by_Aitzol_Berasategi.jpg", "greentock_by_Peter_Nerlich.jpg",
    "life_by_Aitzol_Berasategi.jpg", "picosdeeuropa_by_Aitzol_Berasategi.jpg",
    "seeding_by_Clements_Engelhardt.jpg", "sunset_by_Aitzol_Berasategi.jpg",
    "mate/nature/Aqua.jpg", "mate/nature/Blinds.jpg", "mate/nature/Dune.jpg",
    "mate/nature/FreshFlower.jpg", "mate/nature/Garden.jpg",
    "mate/nature/GreenMeadow.jpg", "mate/nature/LadyBird.jpg",
    "mate/nature/RainDrops.jpg", "mate/nature/Storm.jpg",
    "mate/nature/TwoWings.jpg", "mate/nature/Wood.jpg",
    "mate/nature/YellowFlower.jpg",
]


def large_jpegs(paths, width, height):
    """The paths that are JPEG photos of at least width x height."""
    ok = []
    for p in paths:
        try:
            with Image.open(p) as im:
                if im.format == "JPEG" and im.size[0] >= width and im.size[1] >= height:
                    ok.append(p)
        except OSError:
            continue
    return ok


def sources(width, height):
    """The photos of PHOTOS that exist and are at least width x height (else
    those of REPO_PHOTOS), at most MAX_SOURCES of them, spread over the
    whole list."""
    ok = large_jpegs([os.path.join(SOURCE_ROOT, rel) for rel in PHOTOS], width, height)
    if not ok:
        ok = large_jpegs(sorted(os.path.join(REPO_PHOTOS, n) for n in os.listdir(REPO_PHOTOS)), width, height)
    if not ok:
        sys.exit("gateway_images.py: no JPEG photo of at least %dx%d under %s or %s" % (width, height, SOURCE_ROOT, REPO_PHOTOS))
    if len(ok) > MAX_SOURCES:
        step = len(ok) / MAX_SOURCES
        ok = [ok[int(i * step)] for i in range(MAX_SOURCES)]
    return ok


def window(src_w, src_h, k, npass, width, height):
    """The crop box (left, top, right, bottom) of output k in a photo."""
    aspect = width / height
    full_w = min(src_w, src_h * aspect)
    # Later passes over the scale list shrink a little more, so that a photo
    # whose whole frame is one window still gives new crops.
    s = SCALES[npass % len(SCALES)] * 0.97 ** (npass // len(SCALES))
    cw = max(1.0, full_w * s)
    ch = cw / aspect
    fx = ((k + 1) * GOLDEN) % 1.0
    fy = ((k + 1) * GOLDEN * GOLDEN) % 1.0
    left = (src_w - cw) * fx
    top = (src_h - ch) * fy
    return (int(left), int(top), int(left + cw), int(top + ch))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=64)
    ap.add_argument("--size", default="1280x960")
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("out")
    a = ap.parse_args(argv)
    width, height = (int(x) for x in a.size.lower().split("x"))
    if a.count < 1:
        sys.exit("gateway_images.py: --count must be >= 1")
    os.makedirs(a.out, exist_ok=True)
    srcs = sources(width, height)
    loaded = {}
    seen = {}
    for k in range(a.count):
        p = srcs[k % len(srcs)]
        if p not in loaded:
            with Image.open(p) as im:
                loaded[p] = im.convert("RGB")
        im = loaded[p]
        box = window(im.size[0], im.size[1], k, k // len(srcs), width, height)
        out = im.resize((width, height), Image.LANCZOS, box=box)
        name = os.path.join(a.out, "img%04d.jpg" % k)
        out.save(name, "JPEG", quality=a.quality, subsampling=2)
        with open(name, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if digest in seen:
            sys.exit("gateway_images.py: %s equals %s" % (name, seen[digest]))
        seen[digest] = name
    print("%d images %dx%d from %d photos in %s" % (a.count, width, height, len(srcs), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
