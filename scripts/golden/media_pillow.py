#!/usr/bin/python3
"""Golden corpus for package media (run with Debian's /usr/bin/python3).

Synthesizes small images in every format and mode the decoders handle into
media/testdata/corpus/, copies a few real photos from /usr/share/backgrounds,
and records what the reference loader produces for each file in
media/testdata/golden.json:

    Image.open -> ImageOps.exif_transpose (errors ignored) ->
    transparency ? convert("RGBA") pasted onto a background : convert("RGB")

For every file: Pillow's mode and format, the oriented size, the orientation
applied, the sha256 of the final RGB bytes on a white background and on
BACKGROUND, and whether Pillow accepts the file truncated to half its length.

Usage: /usr/bin/python3 scripts/golden/media_pillow.py [repo-root]
"""

import hashlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

import numpy as np
import PIL
from PIL import Image, ImageOps, features

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
TESTDATA = os.path.join(ROOT, "media", "testdata")
CORPUS = os.path.join(TESTDATA, "corpus")
BACKGROUND = (10, 200, 30)
rng = np.random.default_rng(20261130)


# ---------------------------------------------------------------- reference


def has_transparency(im):
    return im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info


def reference(data, bg=(255, 255, 255)):
    im = Image.open(io.BytesIO(data))
    im.load()
    fmt = im.format
    mode = im.mode
    orientation = 0
    try:
        o = im.getexif().get(0x0112)
        im = ImageOps.exif_transpose(im)
        if o in (2, 3, 4, 5, 6, 7, 8):
            orientation = int(o)
    except Exception:
        pass
    if has_transparency(im):
        rgba = im.convert("RGBA")
        out = Image.new("RGB", rgba.size, bg)
        out.paste(rgba, mask=rgba.split()[3])
    else:
        out = im.convert("RGB")
    return fmt, mode, orientation, out


def sha(im):
    assert im.mode == "RGB"
    return hashlib.sha256(im.tobytes()).hexdigest()


def accepts(data):
    try:
        reference(data)
        return True
    except Exception:
        return False


# ---------------------------------------------------------------- synthesis


def photo(w, h, noise=24):
    """A gradient with blobs and noise: looks enough like a photo for JPEG."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    r = 128 + 100 * np.sin(x / max(w, 1) * 6.1 + y / max(h, 1) * 1.3)
    g = 128 + 100 * np.cos(y / max(h, 1) * 5.3 - x / max(w, 1) * 2.2)
    b = 255 * ((x + y) / max(w + h, 1))
    a = np.stack([r, g, b], axis=-1) + rng.normal(0, noise, (h, w, 3))
    return np.clip(a, 0, 255).astype(np.uint8)


def rgb(w, h, noise=24):
    return Image.fromarray(photo(w, h, noise), "RGB")


def alpha(w, h):
    y, x = np.mgrid[0:h, 0:w]
    a = (x * 255 // max(w - 1, 1)).astype(np.uint8)
    a[: h // 4] = 0
    a[h // 4 : h // 2] = 255
    return a


def save(im, fmt, **kw):
    buf = io.BytesIO()
    im.save(buf, fmt, **kw)
    return buf.getvalue()


def exif_bytes(orientation, endian="<"):
    e = Image.Exif()
    e[0x0112] = orientation
    e[0x010F] = "mmgate"
    return e.tobytes()


def cjpeg(im, *args):
    ppm = save(im, "PPM")
    return subprocess.run(["cjpeg", *args], input=ppm, stdout=subprocess.PIPE, check=True).stdout


def png_chunk(typ, body):
    return struct.pack(">I", len(body)) + typ + body + struct.pack(">I", zlib.crc32(typ + body) & 0xFFFFFFFF)


def png_write(rows, width, height, depth, ctype, plte=None, trns=None, interlace=False, extra=()):
    """A small PNG writer: rows is a 2-D uint8/uint16 sample array (height × width·channels)."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]

    def pack_rows(a):
        out, prev = [], None
        for i, row in enumerate(a):
            if depth == 16:
                raw = row.astype(">u2").tobytes()
            elif depth == 8:
                raw = row.astype(np.uint8).tobytes()
            else:
                per = 8 // depth
                vals = [int(v) for v in row]
                vals += [0] * ((-len(vals)) % per)
                packed = bytearray()
                for j in range(0, len(vals), per):
                    byte = 0
                    for k in range(per):
                        byte |= vals[j + k] << (8 - depth * (k + 1))
                    packed.append(byte)
                raw = bytes(packed)
            bpp = max(1, channels * depth // 8)
            ft = (i * 7 + len(a)) % 5  # exercise every filter type
            out.append(bytes([ft]) + png_filter(ft, raw, prev, bpp))
            prev = raw
        return out

    def png_filter(ft, raw, prev, bpp):
        up = prev if prev is not None else bytes(len(raw))
        res = bytearray(len(raw))
        for j in range(len(raw)):
            a = raw[j - bpp] if j >= bpp else 0
            b = up[j]
            c = up[j - bpp] if j >= bpp else 0
            if ft == 0:
                p = 0
            elif ft == 1:
                p = a
            elif ft == 2:
                p = b
            elif ft == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            res[j] = (raw[j] - p) & 0xFF
        return bytes(res)

    a = np.asarray(rows).reshape(height, width * channels)
    data = b""
    if not interlace:
        data = b"".join(pack_rows(a))
    else:
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        px = a.reshape(height, width, channels)
        for x0, y0, dx, dy in passes:
            sub = px[y0::dy, x0::dx]
            if sub.size == 0:
                continue
            data += b"".join(pack_rows(sub.reshape(sub.shape[0], -1)))
    out = b"\x89PNG\r\n\x1a\n"
    out += png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, ctype, 0, 0, 1 if interlace else 0))
    for typ, body in extra:
        out += png_chunk(typ, body)
    if plte is not None:
        out += png_chunk(b"PLTE", bytes(plte))
    if trns is not None:
        out += png_chunk(b"tRNS", trns)
    z = zlib.compress(data, 6)
    out += png_chunk(b"IDAT", z[: len(z) // 2]) + png_chunk(b"IDAT", z[len(z) // 2 :])
    out += png_chunk(b"IEND", b"")
    return out


def lzw_literal(pixels, m):
    """GIF LZW data that only uses literal codes, clearing the table before
    it grows, so the code width stays m + 1."""
    clear, eoi, width = 1 << m, (1 << m) + 1, m + 1
    codes = []
    run = (1 << m) - 3
    for i, p in enumerate(pixels):
        if i % run == 0:
            codes.append(clear)
        codes.append(int(p))
    codes.append(eoi)
    acc = nbits = 0
    out = bytearray()
    for c in codes:
        acc |= c << nbits
        nbits += width
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8
    if nbits:
        out.append(acc & 0xFF)
    blocks = b""
    for i in range(0, len(out), 255):
        chunk = bytes(out[i : i + 255])
        blocks += bytes([len(chunk)]) + chunk
    return bytes([m]) + blocks + b"\x00"


def gif_write(w, h, gct, frames):
    """frames: (x, y, pixels 2-D, lct or None, interlace, transparency or None)."""
    out = b"GIF89a" + struct.pack("<HH", w, h)
    if gct is not None:
        bits = max(1, (len(gct) // 3 - 1).bit_length())
        out += bytes([0x80 | (bits - 1), 0, 0]) + bytes(gct) + bytes(3 * (1 << bits) - len(gct))
    else:
        out += b"\x00\x00\x00"
    for frame in frames:
        x, y, px, lct, interlace, trans = frame[:6]
        fh, fw = px.shape
        if trans is not None:
            out += b"\x21\xf9\x04\x01\x0a\x00" + bytes([trans]) + b"\x00"
        flags = 0x40 if interlace else 0
        bits = max(1, (len(gct) // 3 - 1).bit_length()) if gct is not None else 8
        if lct is not None:
            bits = max(1, (len(lct) // 3 - 1).bit_length())
            flags |= 0x80 | (bits - 1)
        out += b"\x2c" + struct.pack("<HHHH", x, y, fw, fh) + bytes([flags])
        if lct is not None:
            out += bytes(lct) + bytes(3 * (1 << bits) - len(lct))
        rows = list(range(fh))
        if interlace:
            rows = list(range(0, fh, 8)) + list(range(4, fh, 8)) + list(range(2, fh, 4)) + list(range(1, fh, 2))
        m = frame[6] if len(frame) > 6 else max(2, bits)
        out += lzw_literal(np.concatenate([px[r] for r in rows]), m)
    return out + b"\x3b"


def bmp_write(w, h, bits, pixels_rows, header=40, palette=b"", compression=0, masks=None, top_down=False):
    """pixels_rows: list of raw row bytes, top row first (padding added here)."""
    stride = ((w * bits + 31) >> 3) & ~3
    body = b""
    rows = pixels_rows if top_down else pixels_rows[::-1]
    for r in rows:
        body += r + bytes(stride - len(r))
    if header == 12:
        info = struct.pack("<IHHHH", 12, w, h, 1, bits)
    else:
        info = struct.pack("<IiiHHIIiiII", header, w, -h if top_down else h, 1, bits, compression, len(body), 2835, 2835, 0, 0)
        if header > 40:
            m = list(masks or (0, 0, 0, 0)) + [0] * 4
            info += struct.pack("<IIII", *m[:4])
            info += bytes(header - len(info))
    extra = b""
    if header == 40 and compression == 3:
        extra = struct.pack("<III", *masks[:3])
    off = 14 + len(info) + len(extra) + len(palette)
    return b"BM" + struct.pack("<IHHI", off + len(body), 0, 0, off) + info + extra + palette + body


def jpeg_with_app1(jpeg, payload):
    """Insert an APP1 segment right after SOI."""
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def cases():
    c = {}
    base = rgb(157, 123)
    # JPEG: subsampling, progressive, odd sizes, grey, CMYK
    c["jpeg_444.jpg"] = save(base, "JPEG", quality=90, subsampling=0)
    c["jpeg_422.jpg"] = save(base, "JPEG", quality=85, subsampling=1)
    c["jpeg_420.jpg"] = save(base, "JPEG", quality=85, subsampling=2)
    c["jpeg_440.jpg"] = cjpeg(base, "-quality", "85", "-sample", "1x2")
    c["jpeg_411.jpg"] = cjpeg(base, "-quality", "85", "-sample", "4x1")
    c["jpeg_progressive.jpg"] = save(base, "JPEG", quality=85, progressive=True)
    c["jpeg_progressive_444.jpg"] = save(base, "JPEG", quality=92, subsampling=0, progressive=True)
    c["jpeg_restart.jpg"] = cjpeg(base, "-quality", "80", "-restart", "1")
    c["jpeg_arithmetic.jpg"] = cjpeg(base, "-quality", "80", "-arithmetic")
    c["jpeg_61x37_420.jpg"] = save(rgb(61, 37), "JPEG", quality=88, subsampling=2)
    c["jpeg_61x37_422.jpg"] = save(rgb(61, 37), "JPEG", quality=88, subsampling=1)
    c["jpeg_1x1.jpg"] = save(rgb(1, 1), "JPEG", quality=90)
    c["jpeg_1919x1081_422.jpg"] = save(rgb(1919, 1081, noise=0), "JPEG", quality=40, subsampling=1)
    c["jpeg_grey.jpg"] = save(base.convert("L"), "JPEG", quality=85)
    c["jpeg_cmyk.jpg"] = save(base.convert("CMYK"), "JPEG", quality=90)
    # EXIF orientations on a non-square image, JPEG APP1
    small = rgb(40, 24)
    for o in range(1, 9):
        c[f"exif_jpeg_o{o}.jpg"] = save(small, "JPEG", quality=95, subsampling=0, exif=exif_bytes(o))
    plain = save(small, "JPEG", quality=95, subsampling=0)
    c["exif_corrupt_header.jpg"] = jpeg_with_app1(plain, b"Exif\x00\x00XX*\x00garbage")
    c["exif_corrupt_offset.jpg"] = jpeg_with_app1(plain, b"Exif\x00\x00II*\x00\xff\xff\x00\x00")
    c["exif_truncated_ifd.jpg"] = jpeg_with_app1(
        plain, b"Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x05" + struct.pack(">HHI", 0x0112, 3, 1) + b"\x00\x06\x00\x00"
    )
    c["exif_bad_type.jpg"] = jpeg_with_app1(
        plain, b"Exif\x00\x00II*\x00\x08\x00\x00\x00\x01\x00" + struct.pack("<HHI", 0x0112, 2, 1) + b"\x06\x00\x00\x00" + b"\0" * 4
    )
    c["exif_long_type.jpg"] = jpeg_with_app1(
        plain, b"Exif\x00\x00II*\x00\x08\x00\x00\x00\x01\x00" + struct.pack("<HHII", 0x0112, 4, 1, 6) + b"\0" * 4
    )
    c["exif_count2.jpg"] = jpeg_with_app1(
        plain, b"Exif\x00\x00II*\x00\x08\x00\x00\x00\x01\x00" + struct.pack("<HHIHH", 0x0112, 3, 2, 6, 6) + b"\0" * 4
    )
    c["exif_big_endian_o8.jpg"] = jpeg_with_app1(
        plain, b"Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x01" + struct.pack(">HHIHH", 0x0112, 3, 1, 8, 0) + b"\0" * 4
    )
    c["exif_two_app1.jpg"] = jpeg_with_app1(jpeg_with_app1(plain, exif_bytes(3)), exif_bytes(6))
    c["exif_double_header.jpg"] = jpeg_with_app1(plain, b"Exif\x00\x00" + exif_bytes(6))
    c["exif_rational.jpg"] = jpeg_with_app1(
        plain, b"Exif\x00\x00II*\x00\x08\x00\x00\x00\x01\x00" + struct.pack("<HHII", 0x0112, 5, 1, 26) + b"\0" * 4 + struct.pack("<II", 24, 4)
    )
    c["exif_duplicate_tag.jpg"] = jpeg_with_app1(
        plain,
        b"Exif\x00\x00II*\x00\x08\x00\x00\x00\x03\x00"
        + struct.pack("<HHIHH", 0x0112, 3, 1, 6, 0)
        + struct.pack("<HHIHH", 0x0112, 3, 1, 3, 0)
        + struct.pack("<HHIHH", 0x0112, 99, 1, 5, 0)
        + b"\0" * 4,
    )
    c["exif_offset_out_of_range.jpg"] = jpeg_with_app1(
        plain,
        b"Exif\x00\x00II*\x00\x08\x00\x00\x00\x02\x00"
        + struct.pack("<HHIHH", 0x0112, 3, 1, 6, 0)
        + struct.pack("<HHII", 0x0112, 3, 4, 5000)
        + b"\0" * 4,
    )
    def one_entry(typ, count, value, extra=b""):
        return jpeg_with_app1(
            plain, b"Exif\x00\x00II*\x00\x08\x00\x00\x00\x01\x00" + struct.pack("<HHI", 0x0112, typ, count) + value + b"\0" * 4 + extra
        )

    c["exif_byte_type.jpg"] = one_entry(1, 1, b"\x06\x00\x00\x00")
    c["exif_undefined_type.jpg"] = one_entry(7, 1, b"\x08\x00\x00\x00")
    c["exif_byte_count2.jpg"] = one_entry(1, 2, b"\x06\x06\x00\x00")
    c["exif_sshort_type.jpg"] = one_entry(8, 1, b"\x05\x00\x00\x00")
    c["exif_float_type.jpg"] = one_entry(11, 1, struct.pack("<f", 7.0))
    c["exif_double_type.jpg"] = one_entry(12, 1, struct.pack("<I", 26), struct.pack("<d", 6.0))
    c["exif_count0.jpg"] = one_entry(3, 0, b"\x06\x00\x00\x00")
    c["exif_unknown_type.jpg"] = one_entry(14, 1, b"\x06\x00\x00\x00")
    c["exif_bigtiff.jpg"] = jpeg_with_app1(plain, b"Exif\x00\x00II+\x00\x08\x00\x00\x00" + b"\0" * 16)
    c["exif_bad_value.jpg"] = save(small, "JPEG", quality=95, exif=exif_bytes(9))
    # PNG: every colour type and depth, tRNS, interlace
    w, h = 33, 21
    p = photo(w, h)
    a8 = alpha(w, h)
    grey = p[:, :, 0]
    c["png_rgb.png"] = png_write(p, w, h, 8, 2)
    c["png_rgb_interlaced.png"] = png_write(p, w, h, 8, 2, interlace=True)
    c["png_rgba.png"] = png_write(np.dstack([p, a8]), w, h, 8, 6)
    c["png_rgba_interlaced.png"] = png_write(np.dstack([p, a8]), w, h, 8, 6, interlace=True)
    c["png_la.png"] = png_write(np.dstack([grey, a8]), w, h, 8, 4)
    c["png_l.png"] = png_write(grey, w, h, 8, 0)
    c["png_l_trns.png"] = png_write(grey, w, h, 8, 0, trns=struct.pack(">H", int(grey[3, 3])))
    c["png_rgb_trns.png"] = png_write(p, w, h, 8, 2, trns=struct.pack(">HHH", *[int(v) for v in p[5, 7]]))
    c["png_1bit.png"] = png_write((grey > 128).astype(np.uint8), w, h, 1, 0)
    c["png_1bit_trns.png"] = png_write((grey > 128).astype(np.uint8), w, h, 1, 0, trns=struct.pack(">H", 0))
    c["png_2bit_grey.png"] = png_write(grey >> 6, w, h, 2, 0)
    c["png_4bit_grey_trns.png"] = png_write(grey >> 4, w, h, 4, 0, trns=struct.pack(">H", int(grey[0, 0] >> 4)))
    pal = rng.integers(0, 256, 256 * 3, dtype=np.uint8)
    idx = (grey.astype(int) * 7 // 8).astype(np.uint8)
    c["png_p.png"] = png_write(idx, w, h, 8, 3, plte=pal)
    c["png_p_trns.png"] = png_write(idx, w, h, 8, 3, plte=pal, trns=bytes(rng.integers(0, 256, 200, dtype=np.uint8)))
    simple = bytearray(b"\xff" * 256)
    simple[int(idx[2, 2])] = 0
    c["png_p_trns_single.png"] = png_write(idx, w, h, 8, 3, plte=pal, trns=bytes(simple))
    c["png_p_short_palette.png"] = png_write(idx, w, h, 8, 3, plte=pal[: 3 * 100])
    c["png_p4.png"] = png_write(idx >> 4, w, h, 4, 3, plte=pal[:48], interlace=True)
    c["png_p1.png"] = png_write(idx >> 7, w, h, 1, 3, plte=pal[:6], trns=b"\x80")
    c["png_p2.png"] = png_write(idx >> 6, w, h, 2, 3, plte=pal[:12])
    g16 = (grey.astype(np.uint16) * 3) + rng.integers(0, 60, (h, w), dtype=np.uint16)
    c["png_i16.png"] = png_write(g16, w, h, 16, 0)
    c["png_i16_trns.png"] = png_write(g16, w, h, 16, 0, trns=struct.pack(">H", int(g16[1, 1])))
    c["png_i16_trns_wrap.png"] = png_write(g16, w, h, 16, 0, trns=struct.pack(">H", 256 + int(g16[1, 1] & 0xFF)))
    p16 = p.astype(np.uint16) * 257 + rng.integers(0, 200, p.shape, dtype=np.uint16)
    c["png_rgb16.png"] = png_write(p16, w, h, 16, 2)
    c["png_rgb16_trns.png"] = png_write(p16, w, h, 16, 2, trns=struct.pack(">HHH", *[int(v) for v in p16[2, 3]]))
    a16 = a8.astype(np.uint16) * 257 + rng.integers(0, 2, a8.shape, dtype=np.uint16)
    c["png_rgba16.png"] = png_write(np.dstack([p16, a16]), w, h, 16, 6)
    c["png_la16.png"] = png_write(np.dstack([g16, a16]), w, h, 16, 4, interlace=True)
    c["png_exif_o6.png"] = png_write(p, w, h, 8, 2, extra=[(b"eXIf", exif_bytes(6)[6:])])
    c["png_exif_double_header.png"] = png_write(p, w, h, 8, 2, extra=[(b"eXIf", exif_bytes(6))])
    c["png_exif_after_idat.png"] = png_write(p, w, h, 8, 2)[:-12] + png_chunk(b"eXIf", exif_bytes(8)[6:]) + png_chunk(b"IEND", b"")
    yy, xx = np.mgrid[0:256, 0:256].astype(np.uint8)
    c[PASTE_FILE] = png_write(np.dstack([xx, 255 - xx, xx ^ yy, yy]), 256, 256, 8, 6)
    c["png_1x1.png"] = png_write(p[:1, :1], 1, 1, 8, 2)
    c["png_pillow_rgba.png"] = save(Image.fromarray(np.dstack([p, a8]), "RGBA"), "PNG")
    # WebP
    wb = rgb(97, 61)
    wa = Image.fromarray(np.dstack([photo(97, 61), alpha(97, 61)]), "RGBA")
    c["webp_lossy.webp"] = save(wb, "WEBP", quality=80)
    c["webp_lossless.webp"] = save(wb, "WEBP", lossless=True)
    c["webp_lossy_alpha.webp"] = save(wa, "WEBP", quality=80)
    c["webp_lossless_alpha.webp"] = save(wa, "WEBP", lossless=True)
    c["webp_exif_o8.webp"] = save(wb, "WEBP", quality=80, exif=exif_bytes(8))
    c["webp_animated.webp"] = save(wa, "WEBP", save_all=True, append_images=[wb], duration=100, quality=80)
    c["webp_odd.webp"] = save(rgb(3, 5), "WEBP", quality=90)
    # GIF
    gp = rgb(45, 31).quantize(64)
    c["gif_still.gif"] = save(gp, "GIF")
    c["gif_transparent.gif"] = save(gp, "GIF", transparency=5)
    c["gif_grey.gif"] = save(rgb(45, 31).convert("L"), "GIF")
    c["gif_animated.gif"] = save(gp, "GIF", save_all=True, append_images=[rgb(45, 31).quantize(16)], duration=100)
    # BMP
    c["bmp_rgb.bmp"] = save(rgb(45, 31), "BMP")
    c["bmp_p.bmp"] = save(gp, "BMP")
    c["bmp_l.bmp"] = save(rgb(45, 31).convert("L"), "BMP")
    c["bmp_1bit.bmp"] = save(rgb(45, 31).convert("1"), "BMP")
    c["bmp_rgba.bmp"] = save(Image.fromarray(np.dstack([photo(45, 31), alpha(45, 31)]), "RGBA"), "BMP")
    # TIFF
    tb = rgb(45, 31)
    c["tiff_rgb.tif"] = save(tb, "TIFF")
    c["tiff_rgb_lzw.tif"] = save(tb, "TIFF", compression="tiff_lzw")
    c["tiff_rgb_deflate.tif"] = save(tb, "TIFF", compression="tiff_adobe_deflate")
    c["tiff_l.tif"] = save(tb.convert("L"), "TIFF")
    c["tiff_rgba.tif"] = save(Image.fromarray(np.dstack([photo(45, 31), alpha(45, 31)]), "RGBA"), "TIFF")
    for o in (2, 3, 5, 6, 7, 8):
        c[f"tiff_o{o}.tif"] = save(tb, "TIFF", exif=exif_bytes(o))
    # More JPEG variants
    c["jpeg_adobe_rgb.jpg"] = cjpeg(base, "-quality", "85", "-rgb")
    c["jpeg_410.jpg"] = cjpeg(base, "-quality", "85", "-sample", "4x2")
    c["jpeg_61x37_440.jpg"] = cjpeg(rgb(61, 37), "-quality", "85", "-sample", "1x2")
    c["jpeg_61x37_progressive_422.jpg"] = save(rgb(61, 37), "JPEG", quality=85, subsampling=1, progressive=True)
    j = bytearray(c["jpeg_420.jpg"])
    c["jpeg_trailing_garbage.jpg"] = bytes(j) + b"\x00garbage\xff\xd8"
    sos = j.index(b"\xff\xda")
    c["jpeg_junk_before_marker.jpg"] = bytes(j[:sos]) + b"junk" + bytes(j[sos:])
    k = bytearray(j)
    for off in range(sos + 200, len(k) - 400, 97):
        if k[off] != 0xFF and k[off - 1] != 0xFF:
            k[off] ^= 0x5A
    c["jpeg_corrupt_entropy.jpg"] = bytes(k)
    # A frame header in the middle of the scan: libjpeg warns (premature
    # end of the data segment), pads the rows, then fails on the second SOF.
    m = bytearray(j)
    mid = sos + (len(m) - sos) // 2
    m[mid : mid + 5] = b"\xff\xc0\x00\x11\x08"
    c["jpeg_sof_in_scan.jpg"] = bytes(m)
    dpi_jpeg = save(small, "JPEG", quality=95, dpi=(72, 72))
    app0_end = 4 + struct.unpack(">H", dpi_jpeg[4:6])[0]
    bigtiff = b"Exif\x00\x00II+\x00\x08\x00\x00\x00" + b"\0" * 16
    c["exif_bigtiff_dpi.jpg"] = dpi_jpeg[:app0_end] + b"\xff\xe1" + struct.pack(">H", len(bigtiff) + 2) + bigtiff + dpi_jpeg[app0_end:]
    c["exif_short_header.jpg"] = jpeg_with_app1(plain, b"Exif\x00\x00II*\x00\x08\x00")
    # More PNG variants
    c["png_2bit_grey_interlaced.png"] = png_write(grey >> 6, w, h, 2, 0, interlace=True)
    c["png_1bit_interlaced.png"] = png_write((grey > 100).astype(np.uint8), w, h, 1, 0, interlace=True)
    c["png_rgba16_interlaced.png"] = png_write(np.dstack([p16, a16]), w, h, 16, 6, interlace=True)
    c["png_p_no_plte.png"] = png_write(idx, w, h, 8, 3)
    good = c["png_rgb.png"]
    c["png_bad_crc.png"] = good[:33] + png_chunk(b"tEXt", b"k\x00v")[:-1] + b"\x00" + good[33:]
    c["png_trns_after_idat.png"] = c["png_l.png"][:-12] + png_chunk(b"tRNS", struct.pack(">H", int(grey[3, 3]))) + png_chunk(b"IEND", b"")
    c["png_no_iend.png"] = good[:-12]
    # PNG metadata that Pillow's getexif reads
    def raw_profile(blob):
        hx = blob.hex()
        return ("\nexif\n%8d\n" % len(blob) + "\n".join(hx[i : i + 72] for i in range(0, len(hx), 72)) + "\n").encode()

    def itxt(key, text, compressed=False):
        body = text.encode()
        if compressed:
            body = zlib.compress(body)
        return png_chunk(b"iTXt", key.encode() + b"\0" + bytes([1 if compressed else 0, 0]) + b"\0\0" + body)

    xmp6 = '<x:xmpmeta><rdf:Description tiff:Orientation="6"/></x:xmpmeta>'
    xmp8 = "<x:xmpmeta><tiff:Orientation>8</tiff:Orientation></x:xmpmeta>"
    no_orientation = Image.Exif()
    no_orientation[0x010F] = "mmgate"

    def png_extra(*chunks):
        base_png = png_write(p, w, h, 8, 2)
        return base_png[:33] + b"".join(chunks) + base_png[33:]

    c["png_raw_profile_ztxt_o6.png"] = png_extra(png_chunk(b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(raw_profile(exif_bytes(6)))))
    c["png_raw_profile_text_o3.png"] = png_extra(png_chunk(b"tEXt", b"Raw profile type exif\0" + raw_profile(exif_bytes(3))))
    c["png_raw_profile_bad_hex.png"] = png_extra(png_chunk(b"tEXt", b"Raw profile type exif\0\nexif\n 4\nzz11\n"), itxt("XML:com.adobe.xmp", xmp6))
    c["png_xmp_o8.png"] = png_extra(itxt("XML:com.adobe.xmp", xmp8))
    c["png_xmp_o6_compressed.png"] = png_extra(itxt("XML:com.adobe.xmp", xmp6, compressed=True))
    c["png_exif_notag_xmp_o6.png"] = png_extra(png_chunk(b"eXIf", no_orientation.tobytes()[6:]), itxt("XML:com.adobe.xmp", xmp6))
    c["png_exif_badtag_xmp.png"] = png_extra(png_chunk(b"eXIf", exif_bytes(9)[6:]), itxt("XML:com.adobe.xmp", xmp6))
    c["png_text_exif_key_o7.png"] = png_extra(png_chunk(b"tEXt", b"exif\0" + exif_bytes(7)))
    c["png_ztxt_exif_key.png"] = png_extra(png_chunk(b"zTXt", b"exif\0\0" + zlib.compress(exif_bytes(7))), itxt("XML:com.adobe.xmp", xmp6))
    c["png_exif_then_text_exif.png"] = png_extra(png_chunk(b"eXIf", exif_bytes(6)[6:]), png_chunk(b"tEXt", b"exif\0" + exif_bytes(2)))
    # More GIF variants, written directly
    gct = rng.integers(0, 256, 16 * 3, dtype=np.uint8)
    lct = rng.integers(0, 256, 8 * 3, dtype=np.uint8)
    fpx = (grey[:10, :20] % 16).astype(np.uint8)
    c["gif_offset.gif"] = gif_write(40, 30, gct, [(5, 7, fpx, None, False, None)])
    c["gif_offset_transparent.gif"] = gif_write(40, 30, gct, [(5, 7, fpx, None, False, 3)])
    c["gif_local_palette.gif"] = gif_write(20, 10, gct, [(0, 0, fpx % 8, lct, False, None)])
    c["gif_interlaced.gif"] = gif_write(20, 10, gct, [(0, 0, fpx, None, True, None)])
    c["gif_grey_ramp.gif"] = gif_write(20, 10, bytes(np.repeat(np.arange(16, dtype=np.uint8), 3)), [(0, 0, fpx, None, False, None)])
    c["gif_no_palette.gif"] = gif_write(20, 10, None, [(0, 0, fpx, None, False, None)])
    c["gif_frame_outside.gif"] = gif_write(20, 10, gct, [(5, 5, fpx, None, False, None)])
    c["gif_pixel_out_of_range.gif"] = gif_write(20, 10, gct[: 8 * 3], [(0, 0, fpx, None, False, None, 4)])
    # More BMP variants, written directly
    bw, bh = 13, 7
    bpx = photo(bw, bh)
    bgr_rows = [bytes(bpx[y, :, ::-1].tobytes()) for y in range(bh)]
    pal16 = rng.integers(0, 256, 16 * 4, dtype=np.uint8).tobytes()
    ipx = (bpx[:, :, 0] % 16).astype(np.uint8)
    rows4 = [bytes((int(r[i]) << 4) | (int(r[i + 1]) if i + 1 < bw else 0) for i in range(0, bw, 2)) for r in ipx]
    c["bmp_topdown.bmp"] = bmp_write(bw, bh, 24, bgr_rows, top_down=True)
    c["bmp_4bit.bmp"] = bmp_write(bw, bh, 4, rows4, palette=pal16)
    pal3 = rng.integers(0, 256, 256 * 3, dtype=np.uint8).tobytes()
    c["bmp_os2.bmp"] = bmp_write(bw, bh, 8, [bytes(r) for r in bpx[:, :, 1]], header=12, palette=pal3)
    alpha_b = alpha(bw, bh)
    bgra = np.dstack([bpx[:, :, ::-1], alpha_b])
    rgba_px = np.dstack([bpx, alpha_b])
    c["bmp_v5_bgra.bmp"] = bmp_write(bw, bh, 32, [bytes(r.tobytes()) for r in bgra], header=124, compression=3, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000))
    c["bmp_bitfields_bgrx.bmp"] = bmp_write(bw, bh, 32, [bytes(r.tobytes()) for r in bgra], header=40, compression=3, masks=(0xFF0000, 0xFF00, 0xFF))
    c["bmp_v4_rgba.bmp"] = bmp_write(bw, bh, 32, [bytes(r.tobytes()) for r in rgba_px], header=108, compression=3, masks=(0xFF, 0xFF00, 0xFF0000, 0xFF000000))
    c["bmp_16bit.bmp"] = bmp_write(bw, bh, 16, [bytes(bw * 2) for _ in range(bh)])
    # More TIFF variants
    c["tiff_p.tif"] = save(gp, "TIFF")
    c["tiff_1.tif"] = save(tb.convert("1"), "TIFF")
    c["tiff_packbits.tif"] = save(tb, "TIFF", compression="packbits")
    c["tiff_cmyk.tif"] = save(tb.convert("CMYK"), "TIFF")
    c["tiff_i16.tif"] = save(Image.fromarray(g16.astype(np.uint16)), "TIFF")
    # More WebP variants
    c["webp_animated_noalpha.webp"] = save(wb, "WEBP", save_all=True, append_images=[rgb(97, 61)], duration=100, quality=80)
    c["webp_exif_alpha.webp"] = save(wa, "WEBP", quality=80, exif=exif_bytes(6))
    return c


# Files the Go decoders refuse with ErrUnsupported on purpose (documented
# limits), although Pillow opens them.
KNOWN_UNSUPPORTED = [
    "gif_no_palette.gif",
    "gif_frame_outside.gif",
    "gif_pixel_out_of_range.gif",
    "bmp_16bit.bmp",
    "tiff_cmyk.tif",
    "tiff_i16.tif",
]


def cut_points(n):
    """Lengths at which Pillow's acceptance of a truncated file is recorded."""
    return sorted({n // 4, n // 2, n * 3 // 4, n - 2, n - 1})


# Every (value, alpha) pair, composited on these extra backgrounds too.
PASTE_FILE = "png_paste_pairs.png"
PASTE_BACKGROUNDS = [(0, 0, 0), (127, 64, 200), (1, 254, 128)]

REAL = [
    ("photo_aqua.jpg", "/usr/share/backgrounds/mate/nature/Aqua.jpg"),
    ("photo_wood.webp", "/usr/share/backgrounds/gnome/wood-d.webp"),
    ("photo_city.png", "/usr/share/backgrounds/city.png"),
]


def main():
    os.makedirs(CORPUS, exist_ok=True)
    files = cases()
    for name, src in REAL:
        with open(src, "rb") as f:
            files[name] = f.read()
    golden = []
    for name in sorted(files):
        data = files[name]
        with open(os.path.join(CORPUS, name), "wb") as f:
            f.write(data)
        entry = {"file": name}
        try:
            fmt, mode, orientation, out = reference(data)
            _, _, _, out_bg = reference(data, BACKGROUND)
            entry.update(
                format=fmt.lower(),
                mode=mode,
                width=out.size[0],
                height=out.size[1],
                orientation=orientation,
                sha256=sha(out),
                sha256_background=sha(out_bg),
            )
        except Exception as e:  # the reference refuses the file
            # Drop object addresses so reruns give identical output.
            entry["error"] = re.sub(r" at 0x[0-9a-f]+", "", f"{type(e).__name__}: {e}")
        entry["half_truncated_ok"] = accepts(data[: len(data) // 2])
        if not name.startswith("photo_") and "error" not in entry:
            entry["truncated_ok"] = {str(n): accepts(data[:n]) for n in cut_points(len(data))}
        if name in KNOWN_UNSUPPORTED:
            entry["known_unsupported"] = True
        golden.append(entry)
    paste = []
    for bg in PASTE_BACKGROUNDS:
        _, _, _, out = reference(files[PASTE_FILE], bg)
        paste.append({"background": list(bg), "sha256": sha(out)})
    manifest = {
        "generator": "scripts/golden/media_pillow.py",
        "pillow": PIL.__version__,
        "libjpeg_turbo": features.version("libjpeg_turbo"),
        "libwebp": features.version("webp"),
        "background": list(BACKGROUND),
        "paste_file": PASTE_FILE,
        "paste": paste,
        "cases": golden,
    }
    with open(os.path.join(TESTDATA, "golden.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"{len(golden)} cases written to {TESTDATA}")


if __name__ == "__main__":
    main()
