// Package render holds system tests of vLLM's render API as mmgate serves
// it (`mmgate serve --render-only`, and the same routes on a gateway with
// a worker): the mmgate binary runs as a process and a client written the
// way llm-d's token producer calls a vLLM renderer drives it over HTTP/1.1
// keep-alive — the body copied with a one-token output budget, spliced with
// "return_mm_kwargs": false before its closing brace even when the body
// already sets it, and the caller's Authorization forwarded. Token ids and
// media spans are compared with the independent reference renderer's
// goldens (scripts/golden/prompt_reference.py, prompt_ids.mjs,
// render_ranges.mjs).
package render
