#!/usr/bin/python3
"""Reference prompts for `mmgate render` and the prompt package.

  /usr/bin/python3 scripts/golden/prompt_reference.py --make-cases   # (re)writes prompt/testdata/render_cases.json
  /usr/bin/python3 scripts/golden/prompt_reference.py                # writes prompt/testdata/render_texts.json
  node scripts/golden/prompt_ids.mjs                                 # adds input_ids → prompt/testdata/render_golden.json

For each case (a model folder under prompt/testdata/models and an OpenAI chat
request) this script:
  1. turns the messages into the chat template's input the way vLLM does: media
     parts become {"type": "image"}, placed before the text parts of their
     message unless media_order is "authored"; for a template that never loops
     over content parts the content is flattened to the placeholder once per
     image, then the texts, joined with "\\n"; tool-call arguments given as a
     JSON string are parsed; null content becomes "";
  2. picks the template: chat_template.jinja, unless the request has tools and
     that template never mentions them, then tokenizer_config.json's;
  3. renders it with jinja2 configured as Hugging Face transformers does;
  4. plans each image from its decoded size (Pillow, EXIF-transposed) with
     transformers v5 smart_resize and the folder's preprocessor_config.json,
     and expands each <|image_pad|> to h*w/(patch*merge)^2 copies (processing_qwen2_5_vl.py);
  5. takes each video's plan (sampled source frame indices, grid_thw) from the
     video reference's goldens, internal/videoprep/testdata/golden.json (written
     by scripts/golden/video_reference.py for the clips in media/video/testdata,
     which the requests carry as data: URLs), and expands it as the processors
     do: Qwen2-VL / Qwen2.5-VL replace <|video_pad|> by gt*gh*gw/merge^2 copies
     (processing_qwen2_5_vl.py); Qwen3-VL computes the timestamps from the
     indices and the clip's fps (docs/preprocessing.md, processing_qwen3_vl.py:
     odd counts repeat the last index, seconds = index/fps, one mean per pair of
     frames) and replaces the video's <|vision_start|><|video_pad|><|vision_end|>
     (or bare <|video_pad|>) by, per temporal group, "<{:.1f} seconds>" +
     <|vision_start|> + gh*gw/merge^2 pads + <|vision_end|>.
Environment: Debian's /usr/bin/python3 (jinja2 3.1.2, Pillow 9.4.0).
"""
import base64
import io
import json
import math
import os
import re
import sys

from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from PIL import Image, ImageOps

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TD = os.path.join(ROOT, "prompt", "testdata")
CLIPS = os.path.join(ROOT, "media", "video", "testdata")
VIDEO_GOLDEN = os.path.join(ROOT, "internal", "videoprep", "testdata", "golden.json")
VIDEO_MIME = {".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime", ".avi": "video/x-msvideo"}


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def compile_template(src):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env.from_string(src)


def load_model(name):
    d = os.path.join(TD, "models", name)
    with open(os.path.join(d, "chat_template.jinja"), encoding="utf-8") as f:
        processor = f.read()
    with open(os.path.join(d, "tokenizer_config.json"), encoding="utf-8") as f:
        tok_cfg = json.load(f)
    with open(os.path.join(d, "preprocessor_config.json"), encoding="utf-8") as f:
        pre = json.load(f)
    with open(os.path.join(d, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    return processor, tok_cfg, pre, cfg


def video_pre(name, pre):
    path = os.path.join(TD, "models", name, "video_preprocessor_config.json")
    if not os.path.exists(path):
        return pre
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def mentions_tools(src):
    # Same rule as the Go package, written independently: "tools" read as a
    # variable inside a tag.
    for tag in re.findall(r"\{[{%](.*?)[}%]\}", src, re.S):
        code = re.sub(r"'[^']*'|\"[^\"]*\"", "''", tag)
        if re.search(r"(^|[^\w.])tools\b", code):
            return True
    return False


def iterates_content(src):
    return re.search(r"\{%-?\s*for\s+\w+\s+in\s+[\w.\[\]'\"]*(\.content|\['content'\])\s", src) is not None


def smart_resize(h, w, factor, min_px, max_px):
    if max(h, w) / min(h, w) > 200:
        raise ValueError("aspect ratio")
    hb = round(h / factor) * factor
    wb = round(w / factor) * factor
    if hb * wb > max_px:
        beta = math.sqrt((h * w) / max_px)
        hb = max(factor, math.floor(h / beta / factor) * factor)
        wb = max(factor, math.floor(w / beta / factor) * factor)
    elif hb * wb < min_px:
        beta = math.sqrt(min_px / (h * w))
        hb = math.ceil(h * beta / factor) * factor
        wb = math.ceil(w * beta / factor) * factor
    return hb, wb


def image_tokens(url, pre, kwargs):
    b64 = url.split(",", 1)[1]
    img = ImageOps.exif_transpose(Image.open(io.BytesIO(base64.b64decode(b64))))
    w, h = img.size
    patch, merge = pre["patch_size"], pre["merge_size"]
    if "size" in pre:
        min_px, max_px = pre["size"]["shortest_edge"], pre["size"]["longest_edge"]
    else:
        min_px, max_px = pre["min_pixels"], pre["max_pixels"]
    min_px = kwargs.get("min_pixels", min_px)
    max_px = kwargs.get("max_pixels", max_px)
    rh, rw = smart_resize(h, w, patch * merge, min_px, max_px)
    return (rh // patch) * (rw // patch) // (merge * merge)


def video_plan(url, model, kwargs):
    """The video reference's plan of the clip in a data: URL: (file record, case)."""
    data = base64.b64decode(url.split(",", 1)[1])
    with open(VIDEO_GOLDEN, encoding="utf-8") as f:
        golden = json.load(f)
    names = [n for n, o in golden["overrides"].items() if o == kwargs]
    if len(names) != 1:
        raise ValueError("no video golden for mm_processor_kwargs %r" % (kwargs,))
    for rec in golden["files"]:
        with open(os.path.join(CLIPS, rec["file"]), "rb") as f:
            if f.read() != data:
                continue
        for c in rec["cases"]:
            if c["model"] == model and c["override"] == names[0]:
                if "error" in c:
                    raise ValueError("%s: %s is refused (%s)" % (model, rec["file"], c["error"]))
                return rec, c
    raise ValueError("no video golden for %s with %s" % (model, names[0]))


def qwen3_timestamps(indices, fps):
    # processing_qwen3_vl.py _calculate_timestamps: pad to a multiple of the
    # merge size (2) with the last index, seconds = index / fps, then the
    # mean of each pair.
    idx = list(indices)
    if len(idx) % 2:
        idx.append(idx[-1])
    ts = [i / fps for i in idx]
    return [(ts[k] + ts[k + 1]) / 2 for k in range(0, len(ts), 2)]


def video_layout(url, model, vpre, kwargs):
    """(total pads, pads per group, timestamps or None) of one video."""
    rec, c = video_plan(url, model, kwargs)
    gt, gh, gw = c["grid_thw"]
    per = gh * gw // (vpre["merge_size"] ** 2)
    if "timestamps" not in c:
        return gt * per, per, None
    ts = qwen3_timestamps(c["indices"], rec["fps"])
    if ts != c["timestamps"] or len(ts) != gt:
        raise ValueError("%s: timestamps %r differ from the video golden's %r" % (rec["file"], ts, c["timestamps"]))
    return gt * per, per, ts


def template_input(req, string_content, placeholder, video_placeholder=None):
    order = req.get("media_order", "media_first")
    urls = []
    msgs = []
    for m in req["messages"]:
        content = m.get("content")
        if content is None:
            content = ""
        if isinstance(content, list):
            media, texts, authored = [], [], []
            for p in content:
                if p["type"] == "text":
                    part = {"type": "text", "text": p["text"]}
                    texts.append(part)
                elif p["type"] == "video_url":
                    u = p["video_url"]
                    urls.append(("video", u if isinstance(u, str) else u["url"]))
                    part = {"type": "video"}
                    media.append(part)
                else:
                    u = p["image_url"]
                    urls.append(u if isinstance(u, str) else u["url"])
                    part = {"type": "image"}
                    media.append(part)
                authored.append(part)
            if string_content:
                text = "\n".join(t["text"] for t in texts)
                content = "\n".join([video_placeholder if x["type"] == "video" else placeholder for x in media] + ([text] if text else []))
            else:
                content = authored if order == "authored" else media + texts
        out = {"role": m["role"], "content": content}
        for k in ("name", "tool_call_id", "reasoning_content"):
            if k in m:
                out[k] = m[k]
        if m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                args = c["function"].get("arguments")
                if not args:
                    args = {}
                elif isinstance(args, str):
                    args = json.loads(args)
                call = {}
                if "id" in c:
                    call["id"] = c["id"]
                call["type"] = c.get("type", "function")
                call["function"] = {"name": c["function"]["name"], "arguments": args}
                calls.append(call)
            out["tool_calls"] = calls
        msgs.append(out)
    return msgs, urls


def reference(case):
    processor, tok_cfg, pre, cfg = load_model(case["model"])
    req = case["request"]
    src = processor
    if req.get("tools") and not mentions_tools(processor):
        src = tok_cfg["chat_template"]
    string_content = not iterates_content(src)
    placeholder = "<|vision_start|><|image_pad|><|vision_end|>"
    msgs, urls = template_input(req, string_content, placeholder, "<|vision_start|><|video_pad|><|vision_end|>")
    videos = [u for u in urls if isinstance(u, tuple)]
    urls = [u for u in urls if not isinstance(u, tuple)]
    kwargs = dict(req.get("chat_template_kwargs", {}))
    add_gen = req.get("add_generation_prompt", not req.get("continue_final_message", False))
    text = compile_template(src).render(messages=msgs, tools=req.get("tools"), documents=None,
                                        add_generation_prompt=add_gen, **kwargs)
    if req.get("continue_final_message"):
        text = continue_final(text, msgs)
    counts = [image_tokens(u, pre, req.get("mm_processor_kwargs", {})) for u in urls]
    expanded = text
    for n in counts:
        expanded = expanded.replace("<|image_pad|>", "<|placeholder|>" * n, 1)
    expanded = expanded.replace("<|placeholder|>", "<|image_pad|>")
    out = {"name": case["name"], "prompt": text, "expanded": expanded, "image_tokens": counts,
           "image_token_id": cfg["image_token_id"]}
    if videos:
        vpre = video_pre(case["model"], pre)
        kwargs = req.get("mm_processor_kwargs", {})
        layouts = [video_layout(u, case["model"], vpre, kwargs) for _, u in videos]
        out["expanded"] = expand_videos(expanded, layouts)
        out["video_tokens"] = [n for n, _, _ in layouts]
        out["video_timestamps"] = [["%.1f" % t for t in ts] if ts is not None else None for _, _, ts in layouts]
        out["video_token_id"] = cfg["video_token_id"]
    return out


def expand_videos(text, layouts):
    start, pad, end = "<|vision_start|>", "<|video_pad|>", "<|vision_end|>"
    for total, per, ts in layouts:
        if ts is None:
            text = text.replace(pad, "<|placeholder|>" * total, 1)
            continue
        layout = "".join("<{:.1f} seconds>".format(t) + start + "<|placeholder|>" * per + end for t in ts)
        if start + pad + end in text:
            text = text.replace(start + pad + end, layout, 1)
        else:
            text = text.replace(pad, layout, 1)
    return text.replace("<|placeholder|>", pad)


def continue_final(rendered, messages):
    # transformers apply_chat_template(continue_final_message=True)
    final = messages[-1]["content"]
    if isinstance(final, (list, tuple)):
        final = [b["text"] for b in final if "text" in b][-1]
    loc = rendered.rindex(final.strip())
    if rendered[loc: loc + len(final.lstrip())] == final:
        return rendered[: loc + len(final.lstrip())]
    return rendered[: loc + len(final.strip())]


def png(w, h, color):
    b = io.BytesIO()
    Image.new("RGB", (w, h), color).save(b, "PNG")
    return "data:image/png;base64," + base64.b64encode(b.getvalue()).decode()


def jpeg(w, h, color, orientation=None):
    b = io.BytesIO()
    img = Image.new("RGB", (w, h), color)
    if orientation:
        exif = Image.Exif()
        exif[0x0112] = orientation
        img.save(b, "JPEG", quality=90, exif=exif.tobytes())
    else:
        img.save(b, "JPEG", quality=90)
    return "data:image/jpeg;base64," + base64.b64encode(b.getvalue()).decode()


def clip(name):
    with open(os.path.join(CLIPS, name), "rb") as f:
        b = f.read()
    return "data:%s;base64,%s" % (VIDEO_MIME[os.path.splitext(name)[1]], base64.b64encode(b).decode())


def video_cases(img, txt):
    def vid(name, bare=False):
        u = clip(name)
        return {"type": "video_url", "video_url": u if bare else {"url": u}}
    small = png(64, 48, (200, 30, 30))
    cases = []
    for model in ("qwen2.5-vl", "qwen3-vl"):
        cases += [
            {"name": model + "/video", "model": model, "request": {"model": model, "messages": [
                {"role": "user", "content": [txt("What happens in this video?"), vid("h264_moov_end.mp4")]}]}},
            {"name": model + "/video-fps", "model": model, "request": {"model": model,
                "mm_processor_kwargs": {"fps": 4.0},
                "messages": [{"role": "user", "content": [vid("vp9.webm", bare=True), txt("Count the frames.")]}]}},
            {"name": model + "/image-and-videos-vision-id", "model": model, "request": {"model": model,
                "chat_template_kwargs": {"add_vision_id": True},
                "messages": [
                    {"role": "user", "content": [txt("Compare:"), img(small), vid("three_frames.mp4")]},
                    {"role": "assistant", "content": "A red square and a short clip."},
                    {"role": "user", "content": [txt("And this one?"), vid("rotated.mp4")]}]}},
        ]
    cases += [
        {"name": "qwen3-vl/video-odd-frames", "model": "qwen3-vl", "request": {"model": "qwen3-vl", "messages": [
            {"role": "user", "content": [vid("vfr.mp4"), txt("Describe the motion.")]}]}},
        {"name": "qwen3-vl/video-num-frames-odd", "model": "qwen3-vl", "request": {"model": "qwen3-vl",
            "mm_processor_kwargs": {"num_frames": 5},
            "messages": [{"role": "system", "content": "Answer briefly."},
                         {"role": "user", "content": [vid("h264_moov_end.mp4"), txt("When does it change?")]}]}},
        {"name": "qwen2.5-vl/video-min-pixels", "model": "qwen2.5-vl", "request": {"model": "qwen2.5-vl",
            "mm_processor_kwargs": {"min_pixels": 40000},
            "messages": [{"role": "user", "content": [vid("h264_moov_end.mp4"), txt("Larger frames.")]}]}},
        # Timestamps on exact ties (0.25, 6.75, ...) round half to even.
        {"name": "qwen3-vl/video-half-even", "model": "qwen3-vl", "request": {"model": "qwen3-vl", "messages": [
            {"role": "user", "content": [vid("vp9.webm"), txt("Summarize.")]}]}},
        {"name": "qwen3-vl/video-800-frames", "model": "qwen3-vl", "request": {"model": "qwen3-vl", "messages": [
            {"role": "user", "content": [vid("long_800f.mp4"), txt("Summarize.")]}]}},
    ]
    return cases


def make_cases():
    small = png(64, 48, (200, 30, 30))
    rotated = jpeg(120, 60, (30, 200, 30), orientation=6)  # decodes as 60x120
    wide = jpeg(300, 200, (30, 30, 200))
    tools = [{"type": "function", "function": {"name": "crop", "description": "Crop the image to a box.",
              "parameters": {"type": "object", "properties": {"box": {"type": "array", "items": {"type": "integer"}}},
                             "required": ["box"]}}}]
    def img(u, bare=False):
        return {"type": "image_url", "image_url": u if bare else {"url": u}}
    def txt(s):
        return {"type": "text", "text": s}
    cases = []
    for model in ("qwen2.5-vl", "qwen3-vl"):
        cases += [
            {"name": model + "/text-then-image", "model": model, "request": {"model": model, "messages": [
                {"role": "user", "content": [txt("Describe this image."), img(small)]}]}},
            {"name": model + "/two-images-system-multiturn", "model": model, "request": {"model": model, "messages": [
                {"role": "system", "content": "You compare pictures."},
                {"role": "user", "content": [txt("First:"), img(rotated), txt("Second:"), img(wide, bare=True)]},
                {"role": "assistant", "content": "Green, then blue."},
                {"role": "user", "content": [img(small), txt("And this? Ünïcödé ✓ 你好")]}],
                "chat_template_kwargs": {"add_vision_id": True}}},
            {"name": model + "/authored-order", "model": model, "request": {"model": model, "media_order": "authored",
                "messages": [{"role": "user", "content": [txt("Before"), img(small), txt("after")]}]}},
            {"name": model + "/max-pixels", "model": model, "request": {"model": model,
                "mm_processor_kwargs": {"max_pixels": 20000, "min_pixels": 1000},
                "messages": [{"role": "user", "content": [img(wide), txt("Small please.")]}]}},
            {"name": model + "/tools", "model": model, "request": {"model": model, "tools": tools,
                "chat_template_kwargs": {"enable_thinking": False},
                "messages": [
                    {"role": "user", "content": [img(wide), txt("Crop the left half.")]},
                    {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "crop", "arguments": "{\"box\": [0, 0, 150, 200]}"}}]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "done"}]}},
            {"name": model + "/text-only-continue", "model": model, "request": {"model": model,
                "continue_final_message": True,
                "messages": [{"role": "user", "content": "Write a haiku."},
                             {"role": "assistant", "content": "Autumn moonlight—"}]}},
        ]
    cases.append({"name": "qwen3-vl/tool-response-image", "model": "qwen3-vl", "request": {"model": "qwen3-vl", "tools": tools,
        "messages": [
            {"role": "user", "content": [txt("Zoom in."), img(wide)]},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function",
                "function": {"name": "crop", "arguments": "{\"box\": [1, 2, 3, 4]}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": [txt("cropped:"), img(small)]}]}})
    cases.append({"name": "qwen2.5-vl/tools-image-only", "model": "qwen2.5-vl", "request": {"model": "qwen2.5-vl", "tools": tools,
        "messages": [{"role": "user", "content": [img(wide)]}]}})
    cases += video_cases(img, txt)
    with open(os.path.join(TD, "render_cases.json"), "w", encoding="utf-8") as f:
        json.dump({"cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")


def main():
    if "--make-cases" in sys.argv:
        make_cases()
        return
    with open(os.path.join(TD, "render_cases.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    out = [reference(c) for c in cases]
    with open(os.path.join(TD, "render_texts.json"), "w", encoding="utf-8") as f:
        json.dump({"generator": "scripts/golden/prompt_reference.py", "results": out}, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
