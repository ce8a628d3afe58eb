// Package chattemplate renders Hugging Face chat templates (Jinja) the way
// transformers' apply_chat_template does, byte for byte.
//
// The engine is github.com/ardanlabs/jinja, configured with Hugging Face's
// conventions: trim_blocks and lstrip_blocks, the template's single trailing
// newline dropped and "\r\n" normalised as Jinja's lexer does,
// raise_exception (a *RaiseError carrying the template's message),
// strftime_now, the {% generation %} … {% endgeneration %} block of
// transformers' AssistantTracker extension (llava-hf's templates use it;
// it renders its body unchanged), and a tojson filter equal to
// json.dumps(x, ensure_ascii=False, indent=…, separators=…, sort_keys=False)
// — dict keys in insertion order, Python's float repr. Inputs keep the key
// order of the request (Object, json.RawMessage), because Python dicts do
// and templates print them with tojson.
//
// The tests compare the output with Python jinja2 3.1.2 in Hugging Face's
// ImmutableSandboxedEnvironment configuration
// (scripts/golden/chattemplate_jinja.py) on the Qwen2-VL, Qwen3-VL Instruct
// and Qwen3 text templates and those of the model folders in testdata/models
// (Gemma 3, LLaVA-1.5, LLaVA-NeXT, InternVL3, GLM-4.1V).
//
// Known engine limits: the '+' whitespace modifiers and raw blocks are
// refused at compile time; printing a float with {{ }} uses Go's %g (the
// Qwen templates never do); str.strip() without arguments strips Go's
// Unicode white space.
//
// A compiled *Template and a *Set are immutable and safe for concurrent
// use.
package chattemplate
