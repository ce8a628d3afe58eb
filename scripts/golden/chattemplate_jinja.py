#!/usr/bin/python3
"""Render chattemplate/testdata/cases.json with Python jinja2 configured as
Hugging Face transformers configures it, and write
chattemplate/testdata/golden.json.

Environment: Debian's /usr/bin/python3 with python3-jinja2 (3.1.2).
Run from the repository root:  /usr/bin/python3 scripts/golden/chattemplate_jinja.py
"""
import json
import os
import sys
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.exceptions import TemplateError
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TD = os.path.join(ROOT, "chattemplate", "testdata")


class RaisedError(Exception):
    pass


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers' chat-template tojson: no HTML escaping, keys unsorted.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


class AssistantTracker(Extension):
    # transformers' {% generation %} ... {% endgeneration %} block (chat
    # template utils): the body is rendered unchanged; transformers only
    # records its span when asked for the assistant-token mask, which no
    # gateway asks for.
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    def _generation_support(self, caller):
        return caller()


def compile_template(src):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[AssistantTracker, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env.from_string(src)


def load_template(name):
    path = os.path.join(TD, name)
    with open(path, encoding="utf-8") as f:
        src = f.read()
    if name.endswith(".json"):
        src = json.loads(src)["chat_template"]
    return src


def continue_final(rendered, messages):
    # transformers apply_chat_template(continue_final_message=True)
    final = messages[-1]["content"]
    if isinstance(final, (list, tuple)):
        for block in reversed(final):
            if "text" in block:
                final = block["text"]
                break
        else:
            raise ValueError("continue_final_message: no text in the final message")
    if final.strip() not in rendered:
        raise ValueError("continue_final_message: final message not in the rendered chat")
    loc = rendered.rindex(final.strip())
    if rendered[loc: loc + len(final.lstrip())] == final:
        return rendered[: loc + len(final.lstrip())]
    return rendered[: loc + len(final.strip())]


def main():
    with open(os.path.join(TD, "cases.json"), encoding="utf-8") as f:
        doc = json.load(f)
    templates = {k: compile_template(load_template(v)) for k, v in doc["templates"].items()}
    out = []
    for case in doc["cases"]:
        kwargs = dict(case.get("kwargs", {}))
        try:
            text = templates[case["template"]].render(
                messages=case["messages"],
                tools=case.get("tools"),
                documents=None,
                add_generation_prompt=case["add_generation_prompt"],
                **kwargs,
            )
            if case.get("continue_final_message"):
                text = continue_final(text, case["messages"])
            out.append({"name": case["name"], "output": text})
        except TemplateError as e:
            out.append({"name": case["name"], "raise": str(e)})
        except ValueError as e:
            out.append({"name": case["name"], "error": str(e)})
    golden = {
        "generator": "scripts/golden/chattemplate_jinja.py",
        "python": sys.version.split()[0],
        "jinja2": jinja2.__version__,
        "results": out,
    }
    with open(os.path.join(TD, "golden.json"), "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
