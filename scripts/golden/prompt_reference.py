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
     and expands each <|image_pad|> to h*w/(patch*merge)^2 copies (processing_qwen2_5_vl.py).
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


def template_input(req, string_content, placeholder):
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
                else:
                    u = p["image_url"]
                    urls.append(u if isinstance(u, str) else u["url"])
                    part = {"type": "image"}
                    media.append(part)
                authored.append(part)
            if string_content:
                text = "\n".join(t["text"] for t in texts)
                content = "\n".join([placeholder] * len(media) + ([text] if text else []))
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
    msgs, urls = template_input(req, string_content, placeholder)
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
    return {"name": case["name"], "prompt": text, "expanded": expanded, "image_tokens": counts,
            "image_token_id": cfg["image_token_id"]}


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
