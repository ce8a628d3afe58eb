#!/usr/bin/python3
"""Reference chat prompts of the model families beyond Qwen-VL.

  /usr/bin/python3 scripts/golden/family_prompts.py [OUT]   # writes OUT (default: $TMPDIR/family_prompts_text.json)
  node scripts/golden/family_prompt_ids.mjs OUT             # adds input_ids -> cmd/mmgate/testdata/family_prompts.json

For each case (a model folder of testdata/models, optionally with
preprocessor_config.json values changed, and an OpenAI chat request whose
images are data: URLs) this script:
  1. builds the template input as the gateway and vLLM do (prompt_reference.
     template_input: media parts become {"type": "image"} before the text
     parts of their message, string content stays a string);
  2. renders the folder's chat_template.jinja with jinja2 configured as
     transformers configures it (chattemplate_jinja.compile_template:
     trim/lstrip blocks, the {% generation %} extension, raise_exception,
     tojson), the tokenizer's special tokens (bos_token, ...) as variables;
  3. expands each image's anchor the way the family's Hugging Face
     processor does, in order, from the image's decoded size:
       Gemma 3     each <start_of_image> -> Gemma3Processor's full image
                   sequence ("\\n\\n<start_of_image>" + 256 soft tokens +
                   "<end_of_image>\\n\\n"), with pan-and-scan the "Here is the
                   original image ..." text and one sequence per crop
                   (gemma3_reference.pan_and_scan / replacement);
       LLaVA-1.5   each <image> -> LlavaProcessor's 576 <image>
                   (clip_reference.image_tokens);
       LLaVA-NeXT  each <image> -> the anyres count (llavanext_reference.
                   image_tokens for the image's size);
       InternVL    each <IMG_CONTEXT> -> <img> + 256 * num_patches
                   <IMG_CONTEXT> + </img> (internvl_reference.plan, prompt);
       GLM-4.1V    each <|image|> -> t*h*w/4 <|image|> (glm4v_reference.
                   smart_resize with the image processor's bounds);
  4. writes the rendered prompt, the expanded text and each image's
     replacement (the text vLLM's processor for the model puts in place of
     the anchor); family_prompt_ids.mjs then tokenizes the expanded text
     with the folder's tokenizer.json and Hugging Face tokenizers, without
     the post-processor's special tokens (vLLM's add_special_tokens=False
     for chat), records the runs of the pad token, and finds each
     replacement as vLLM's render finds it (features.mm_placeholders).
Environment: Debian's /usr/bin/python3 (jinja2 3.1.2, Pillow 9.4.0, NumPy 1.24.2).
"""
import base64
import gzip
import io
import json
import os
import shutil
import sys
import tempfile

from PIL import Image, ImageOps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chattemplate_jinja as J  # noqa: E402
import clip_reference as C  # noqa: E402
import gemma3_reference as G  # noqa: E402
import glm4v_reference as GLM  # noqa: E402
import hf_pil as H  # noqa: E402
import internvl_reference as IV  # noqa: E402
import llavanext_reference as LN  # noqa: E402
import prompt_reference as P  # noqa: E402

MODELS = os.path.join(H.ROOT, "testdata", "models")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.gettempdir(), "family_prompts_text.json")


def materialise(name, patch):
    """A copy of testdata/models/NAME with every .gz file decompressed and
    preprocessor_config.json values replaced by patch."""
    dst = os.path.join(tempfile.mkdtemp(), name)
    os.makedirs(dst)
    src = os.path.join(MODELS, name)
    for f in os.listdir(src):
        if f.endswith(".gz"):
            with gzip.open(os.path.join(src, f), "rb") as i, open(os.path.join(dst, f[:-3]), "wb") as o:
                shutil.copyfileobj(i, o)
        else:
            shutil.copy(os.path.join(src, f), os.path.join(dst, f))
    if patch:
        p = os.path.join(dst, "preprocessor_config.json")
        with open(p) as f:
            pre = json.load(f)
        pre.update(patch)
        with open(p, "w") as f:
            json.dump(pre, f)
    return dst


def special_tokens(model_dir):
    """The template variables transformers passes from the tokenizer."""
    tc = H.read_json(model_dir, "tokenizer_config.json")
    out = {}
    for k in ("bos_token", "eos_token", "unk_token", "pad_token"):
        v = tc.get(k)
        if isinstance(v, dict):
            v = v.get("content")
        if isinstance(v, str):
            out[k] = v
    return out


def image_size(url):
    img = ImageOps.exif_transpose(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    return img.size  # (w, h)


# Per family: the anchor the template renders, and what one image of
# size (w, h) becomes.
def gemma3_expand(model_dir):
    cfg = G.load_config(model_dir)

    def expand(w, h):
        n = 0
        if cfg["do_pan_and_scan"]:
            import numpy as np
            n = len(G.pan_and_scan(np.zeros((3, h, w), np.uint8), cfg["pan_and_scan_min_crop_size"],
                                   cfg["pan_and_scan_max_num_crops"], cfg["pan_and_scan_min_ratio_to_activate"]))
        return G.replacement(cfg, n)
    return cfg["boi_token"], expand, cfg["image_token"]


def llava_expand(model_dir):
    cfg = C.load_config(model_dir)
    n = C.image_tokens(cfg, cfg["crop_size"]["height"], cfg["crop_size"]["width"])
    return cfg["image_token"], lambda w, h: cfg["image_token"] * n, cfg["image_token"]


def llava_next_expand(model_dir):
    cfg = LN.load_config(model_dir)
    crop = cfg["crop_size"]
    return cfg["image_token"], lambda w, h: cfg["image_token"] * LN.image_tokens(cfg, h, w, crop["height"], crop["width"]), cfg["image_token"]


def internvl_expand(model_dir):
    cfg = IV.load_config(model_dir)
    return "<IMG_CONTEXT>", lambda w, h: IV.prompt(IV.plan(w, h, cfg)[4], cfg), "<IMG_CONTEXT>"


def glm4v_expand(model_dir):
    s = GLM.load_config(model_dir)["image"]

    def expand(w, h):
        rh, rw = GLM.smart_resize(s["temporal_patch_size"], h, w, s["temporal_patch_size"],
                                  s["patch_size"] * s["merge_size"], s["min_pixels"], s["max_pixels"])
        n = (rh // s["patch_size"]) * (rw // s["patch_size"]) // (s["merge_size"] ** 2)
        return "<|image|>" * n
    return "<|image|>", expand, "<|image|>"


FAMILIES = {"gemma3": gemma3_expand, "llava-1.5": llava_expand, "llava-next": llava_next_expand,
            "internvl3": internvl_expand, "glm-4.1v": glm4v_expand}


def reference(case):
    model_dir = materialise(case["model"], case.get("preprocessor"))
    with open(os.path.join(model_dir, "chat_template.jinja"), encoding="utf-8") as f:
        src = f.read()
    req = case["request"]
    anchor, expand, pad = FAMILIES[case["model"]](model_dir)
    string_content = not P.iterates_content(src)
    msgs, urls = P.template_input(req, string_content, anchor)
    add_gen = req.get("add_generation_prompt", not req.get("continue_final_message", False))
    text = J.compile_template(src).render(messages=msgs, tools=req.get("tools"), documents=None,
                                          add_generation_prompt=add_gen, **special_tokens(model_dir),
                                          **req.get("chat_template_kwargs", {}))
    # The processors replace the anchors in order, each with its image's
    # expansion; a marker keeps replaced text from being matched again.
    expanded, marks = text, []
    for i, u in enumerate(urls):
        w, h = image_size(u)
        mark = "\x00%d\x00" % i
        if anchor not in expanded:
            raise ValueError("%s: no anchor for image %d" % (case["name"], i))
        expanded = expanded.replace(anchor, mark, 1)
        marks.append((mark, expand(w, h)))
    for mark, rep in marks:
        expanded = expanded.replace(mark, rep)
    return {"name": case["name"], "model": case["model"], "preprocessor": case.get("preprocessor"),
            "pad": pad, "prompt": text, "expanded": expanded, "replacements": [rep for _, rep in marks]}


def img(u):
    return {"type": "image_url", "image_url": {"url": u}}


def txt(s):
    return {"type": "text", "text": s}


def cases():
    small = P.png(64, 48, (200, 30, 30))
    wide = P.png(1600, 500, (30, 30, 200))  # pan-and-scan crops, InternVL and LLaVA-NeXT tiles
    rotated = P.jpeg(120, 60, (30, 200, 30), orientation=6)  # decodes as 60x120
    tall = P.png(300, 1000, (120, 120, 20))
    out = []
    parts_system = {"role": "system", "content": [txt("You compare pictures.")]}
    for model in FAMILIES:
        system = parts_system if model.startswith("llava") else {"role": "system", "content": "You compare pictures."}
        assistant = {"role": "assistant", "content": [txt("Green, then blue.")]} if model.startswith("llava") \
            else {"role": "assistant", "content": "Green, then blue."}
        out += [
            {"name": model + "/one-image", "model": model, "request": {"messages": [
                {"role": "user", "content": [txt("Describe this image."), img(small)]}]}},
            {"name": model + "/two-images-system-multiturn", "model": model, "request": {"messages": [
                system,
                {"role": "user", "content": [txt("First:"), img(rotated), txt("Second:"), img(wide)]},
                assistant,
                {"role": "user", "content": [img(tall), txt("And this? Ünïcödé ✓ 你好")]}]}},
        ]
    out.append({"name": "gemma3-pan-and-scan/two-images", "model": "gemma3", "preprocessor": {"do_pan_and_scan": True},
                "request": {"messages": [{"role": "user", "content": [txt("Compare"), img(wide), img(tall)]}]}})
    out.append({"name": "internvl3/authored-order", "model": "internvl3", "request": {"media_order": "authored",
                "messages": [{"role": "user", "content": [txt("Before"), img(wide), txt("after")]}]}})
    return out


def main():
    results = [reference(c) for c in cases()]
    doc = {"generator": "scripts/golden/family_prompts.py", "cases": cases(), "results": results}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
