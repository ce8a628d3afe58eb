#!/usr/bin/python3
"""Writes the synthesized edge-case images of testdata/photos/synth/.

Run with Debian's /usr/bin/python3 (Pillow 9.4.0, NumPy 1.24.2) and, for the
4:4:0 JPEG, cjpeg from libjpeg-turbo-progs:

    /usr/bin/python3 scripts/golden/gen_corpus.py [OUT_DIR]

OUT_DIR defaults to testdata/photos/synth. Content is deterministic (seeded
NumPy noise over smooth gradients); encoders are the ones of the Debian
libraries, so the committed files are the reference, not this script's
re-run on another machine.
"""

import io
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pattern(w, h, seed, noise=40):
    """A smooth colour gradient plus seeded noise, uint8 HxWx3."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    r = 128 + 100 * np.sin(x / max(w, 1) * 6.0 + seed)
    g = 128 + 100 * np.cos(y / max(h, 1) * 5.0 + seed * 0.5)
    b = 128 + 90 * np.sin((x + y) / max(w + h, 1) * 9.0)
    base = np.stack([r, g, b], axis=-1)
    base += rng.integers(-noise, noise + 1, size=base.shape)
    return np.clip(base, 0, 255).astype(np.uint8)


def smooth(w, h, seed):
    return pattern(w, h, seed, noise=2)


def alpha_ramp(w, h, seed):
    rng = np.random.default_rng(seed + 100)
    y, x = np.mgrid[0:h, 0:w]
    a = (x * 255 // max(w - 1, 1)).astype(np.int64)
    a[: h // 4] = 0
    a[h // 4: h // 2] = 255
    a = a + rng.integers(-8, 9, size=a.shape) * (a > 0) * (a < 255)
    return np.clip(a, 0, 255).astype(np.uint8)


def png_chunk(kind, data):
    c = struct.pack(">I", len(data)) + kind + data
    return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png_raw(path, w, h, bitdepth, colortype, rows, extra=b""):
    """A minimal PNG writer for what Pillow 9.4 cannot save (16-bit RGB/RGBA,
    RGB with a tRNS colour). rows are raw scanline bytes without filter."""
    raw = b"".join(b"\x00" + r for r in rows)
    data = b"\x89PNG\r\n\x1a\n"
    data += png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bitdepth, colortype, 0, 0, 0))
    data += extra
    data += png_chunk(b"IDAT", zlib.compress(raw, 9))
    data += png_chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def exif_bytes(orientation):
    ex = Image.Exif()
    ex[0x0112] = orientation
    return ex.tobytes()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "photos", "synth")
    os.makedirs(out, exist_ok=True)

    def p(name):
        return os.path.join(out, name)

    # JPEG colour spaces, subsamplings, progressive, odd sizes.
    img = Image.fromarray(pattern(157, 123, 1))
    img.save(p("jpeg_444_157x123.jpg"), quality=85, subsampling=0)
    img.save(p("jpeg_422_157x123.jpg"), quality=85, subsampling=1)
    img.save(p("jpeg_420_157x123.jpg"), quality=85, subsampling=2)
    img.save(p("jpeg_420_prog_157x123.jpg"), quality=85, subsampling=2, progressive=True)
    Image.fromarray(pattern(157, 123, 2)).convert("L").save(p("jpeg_grey.jpg"), quality=90)
    cmyk = Image.fromarray(np.dstack([pattern(96, 64, 3), pattern(96, 64, 4)[:, :, :1]]), "CMYK")
    cmyk.save(p("jpeg_cmyk.jpg"), quality=90)
    with tempfile.TemporaryDirectory() as td:
        ppm = os.path.join(td, "in.ppm")
        Image.fromarray(pattern(101, 77, 5)).save(ppm)
        subprocess.run(["cjpeg", "-quality", "85", "-sample", "1x2,1x1,1x1",
                        "-outfile", p("jpeg_440_101x77.jpg"), ppm], check=True)

    # EXIF orientations 1..8 on a non-square JPEG, and a corrupt EXIF block.
    base = Image.fromarray(pattern(48, 30, 6, noise=10))
    for o in range(1, 9):
        base.save(p("exif_%d.jpg" % o), quality=90, exif=exif_bytes(o))
    good = io.BytesIO()
    base.save(good, format="JPEG", quality=90)
    b = good.getvalue()
    bad_app1 = b"\xff\xe1" + struct.pack(">H", 2 + 6 + 12) + b"Exif\x00\x00" + b"MM\x00\x2a\xff\xff\xff\xf0\x00\x01\x01\x12"
    with open(p("exif_corrupt.jpg"), "wb") as f:
        f.write(b[:2] + bad_app1 + b[2:])

    # PNG modes.
    rgb = pattern(61, 43, 7)
    Image.fromarray(rgb).convert("L").save(p("png_l.png"))
    la = Image.merge("LA", [Image.fromarray(rgb).convert("L"), Image.fromarray(alpha_ramp(61, 43, 7))])
    la.save(p("png_la.png"))
    pal = Image.fromarray(rgb).quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    pal.save(p("png_p.png"))
    trns = bytes(range(0, 256, 4))  # 64 alpha values, one per palette entry
    pal.save(p("png_p_trns.png"), transparency=trns)
    pal.save(p("png_p_trns_index.png"), transparency=5)
    rgba = np.dstack([rgb, alpha_ramp(61, 43, 8)])
    Image.fromarray(rgba, "RGBA").save(p("png_rgba.png"))
    g16 = (np.arange(61 * 43, dtype=np.uint32).reshape(43, 61) * 23) % 65536
    write_png_raw(p("png_i16.png"), 61, 43, 16, 0, [g16[y].astype(">u2").tobytes() for y in range(43)])
    rgb16 = (rgb.astype(np.uint32) * 257 + np.arange(61, dtype=np.uint32)[None, :, None]) % 65536
    write_png_raw(p("png_rgb16.png"), 61, 43, 16, 2, [rgb16[y].astype(">u2").tobytes() for y in range(43)])
    rgba16 = np.dstack([rgb16, alpha_ramp(61, 43, 9).astype(np.uint32) * 257])
    write_png_raw(p("png_rgba16.png"), 61, 43, 16, 6, [rgba16[y].astype(">u2").tobytes() for y in range(43)])
    key = rgb[10, 10]
    rgbk = rgb.copy()
    rgbk[5:15, 5:30] = key
    write_png_raw(p("png_rgb_trns.png"), 61, 43, 8, 2, [rgbk[y].tobytes() for y in range(43)],
                  extra=png_chunk(b"tRNS", struct.pack(">HHH", *[int(v) for v in key])))
    lk = Image.fromarray(rgb).convert("L")
    lk.save(p("png_l_trns.png"), transparency=int(np.asarray(lk)[0, 0]))

    # WebP.
    wimg = Image.fromarray(pattern(83, 59, 10))
    wimg.save(p("webp_lossy.webp"), quality=80)
    wimg.save(p("webp_lossless.webp"), lossless=True)
    walpha = Image.fromarray(np.dstack([pattern(83, 59, 11), alpha_ramp(83, 59, 11)]), "RGBA")
    walpha.save(p("webp_lossy_alpha.webp"), quality=80)
    walpha.save(p("webp_lossless_alpha.webp"), lossless=True)

    # GIF (palette, transparent index) and BMP.
    gif = Image.fromarray(pattern(70, 50, 12)).quantize(colors=32)
    gif.save(p("gif_trns.gif"), transparency=3)
    Image.fromarray(pattern(70, 50, 13)).quantize(colors=32).save(p("gif.gif"))
    Image.fromarray(pattern(70, 50, 14)).save(p("bmp.bmp"))

    # Sizes around the factors (PNG, lossless), tiny and ratio edge cases.
    for s in (1, 27, 28, 29, 31, 32, 33):
        Image.fromarray(pattern(s, s, 20 + s)).save(p("size_%dx%d.png" % (s, s)))
    Image.fromarray(pattern(27, 29, 60)).save(p("size_27x29.png"))
    Image.fromarray(pattern(100, 80, 61)).save(p("grow_100x80.png"))
    Image.fromarray(pattern(448, 448, 62, noise=6)).save(p("aligned_448x448.png"))
    for w in (199, 200, 201):
        Image.fromarray(pattern(w, 1, 70 + w)).save(p("ratio_%dx1.png" % w))
    Image.fromarray(pattern(2, 402, 73)).save(p("ratio_2x402.png"))
    Image.fromarray(pattern(30, 6000, 74, noise=6)).save(p("tall_30x6000.png"))
    Image.fromarray(pattern(30, 5000, 75, noise=6)).save(p("tall_30x5000.png"))
    Image.fromarray(pattern(33, 600, 76)).save(p("tall_33x600.png"))
    Image.fromarray(smooth(4000, 3000, 77)).save(p("big_4000x3000.jpg"), quality=60, subsampling=2)

    # Inputs that must be refused as undecodable.
    with open(p("jpeg_truncated.jpg"), "wb") as f:
        f.write(b[: len(b) // 2])
    with open(p("not_an_image.jpg"), "wb") as f:
        f.write(b"this is not an image\n")


if __name__ == "__main__":
    main()
