// Package tokenizer loads a Hugging Face tokenizer.json whose model is a
// (byte-level) BPE — the tokenizers of Qwen2, Qwen2.5, Qwen3 and their VL
// variants, GPT-2-style and Llama-3-style tokenizers — and encodes text to ids
// and decodes ids to text exactly as the Rust `tokenizers` library does
// (checked against its release 0.23.2 on a committed corpus).
//
// # What is matched
//
//   - Added tokens are found before normalization and pre-tokenization, as
//     tokenizers' AddedVocabulary does: first the tokens with normalized=false
//     on the raw text, then, after normalization, the tokens with
//     normalized=true; leftmost match first, longest at a position, honouring
//     the lstrip, rstrip and single_word flags.
//   - Normalizers: NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents,
//     Replace, Prepend and Sequence.
//   - Pre-tokenizers: Split (String or Regex pattern, every behaviour, invert),
//     ByteLevel (add_prefix_space, use_regex) and Sequence. The split pattern
//     of Qwen2/Qwen3 and of Llama-3 has a hand-written scanner; any other
//     pattern runs on github.com/dlclark/regexp2 (a backtracking engine with
//     lookaround and Unicode classes, like the Oniguruma engine tokenizers
//     uses).
//   - BPE: merges as "a b" strings or ["a", "b"] pairs, ignore_merges,
//     byte_fallback, unk_token/fuse_unk, continuing_subword_prefix and
//     end_of_word_suffix. A dropout above zero is refused: it makes encoding
//     random.
//   - Post-processors: ByteLevel (adds nothing), TemplateProcessing (single
//     sequence), RobertaProcessing, BertProcessing and Sequence; they run only
//     when special tokens are requested, which Encode does (as tokenizers'
//     encode does by default).
//   - Decoders: ByteLevel, and none (tokens joined by a space, as tokenizers
//     does). Byte sequences that are not UTF-8 become U+FFFD, one per maximal
//     invalid subpart, as Rust's String::from_utf8_lossy does. Ids the
//     tokenizer does not know are skipped.
//
// Text given to Encode that is not valid UTF-8 is first made valid the same
// way (one U+FFFD per maximal invalid subpart). As in tokenizers, the ids of
// added tokens are assigned when the file is read: a token whose text is
// already in the vocabulary takes that id, any other the next id after the
// model's vocabulary (the ids written in the file agree for real
// tokenizers). The file's truncation and padding settings are not applied.
//
// # Speed
//
// Encoding runs a hand-written scanner for known split patterns, a merge
// table keyed by the pair of ids (open addressing), an in-place merge loop
// for short words and an indexed heap for long ones, and a bounded,
// lock-free word cache. Loading reads the vocabulary and merges with a small
// scanner (about 0.15 s for the 11 MB Qwen3 file) and falls back to
// encoding/json for anything unusual. scripts/bench_tokenizer.sh compares the
// speed with tokenizers' Node binding on the same texts.
//
// # Streaming
//
// Tokenizer.NewStream returns an incremental decoder for generated ids: its
// output never splits a UTF-8 sequence, and its concatenated output (with
// Flush) equals Decode of the same ids.
//
// # Configuration
//
// LoadConfig reads a model directory's tokenizer_config.json (special
// tokens, add_bos_token, chat_template), generation_config.json and
// config.json (eos ids); Config.StopTokenIDs gathers the ids that end
// generation.
//
// # Concurrency
//
// A *Tokenizer is immutable after loading except for its word cache, which is
// sharded and locked: every method is safe for concurrent use. A *Stream (the
// incremental decoder) belongs to one goroutine at a time.
package tokenizer
