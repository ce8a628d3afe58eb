// Package prompt turns an OpenAI chat completions request (parsed by
// package openai) into what a multimodal model consumes: the media items in
// prompt order, the chat template's input, and — after rendering and
// tokenizing — the final input ids with one placeholder range per media item
// and content hashes.
//
// The rules follow vLLM's chat preprocessing and the Hugging Face
// processors of the model families (Qwen2-VL, Qwen2.5-VL, Qwen3-VL, …):
//
//   - Build lists the media items and builds the template messages: media
//     parts become {"type": "image"} (video, audio likewise), text parts
//     {"type": "text", "text": …}. Inside a message media parts come first
//     (stable) unless media_order is "authored". For a template that never
//     iterates content parts (chattemplate.Template.IteratesContentParts),
//     content is flattened to the placeholder once per item followed by the
//     text parts, joined with "\n" (vLLM's rule). Text containing a media
//     special token is refused. Tool-call arguments sent as a JSON string
//     are parsed, as vLLM does before rendering. Errors are *Error values
//     with the offending field's path.
//   - Render renders the template, lays out each media item as its
//     Expansion says (the model's family decides: the anchor kept as one
//     pad run, replaced by text with several runs, or Qwen3-VL's
//     timestamped temporal groups), tokenizes, checks that every modality
//     has exactly one pad token per run (and one start/end pair per visual
//     run), and widens each pad to its run's length, which the caller plans
//     from the media headers (for example vision.Processor.PlanImage).
//     The prompt is tokenized as vLLM tokenizes a chat prompt: without the
//     tokenizer's post-processor specials (EncodeChat), since the template
//     writes the ones it wants.
//     The special tokens come from the model's family (Specials; for
//     Qwen-VL, ReadSpecials reads them from config.json and the
//     tokenizer); none are assumed. Result.Structural gives an item's
//     structural range (its runs and what lies between them, or all of
//     its replacement text with Expansion.Frame).
//   - ContentHash is the worker protocol's item hash: BLAKE3 of the
//     lower-case hex of BLAKE3 of the raw (base64-decoded) media bytes.
//
// Video input is refused with ErrUnsupported unless Options.EnableVideo is
// set; the video layout functions are ready for it.
//
// Everything here is a pure function of its inputs and safe for concurrent
// use; a *Specials is read-only after ReadSpecials.
package prompt
