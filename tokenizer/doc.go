// Package tokenizer loads a Hugging Face tokenizer.json whose model is a BPE
// — byte-level (Qwen2, Qwen2.5, Qwen3 and their VL variants, InternVL3,
// GPT-2-style and Llama-3-style tokenizers) or SentencePiece-style with byte
// fallback (Gemma 3, Llama 2, Mistral, so LLaVA-1.5 and LLaVA-NeXT) — and
// encodes text to ids and decodes ids to text exactly as the Rust
// `tokenizers` library does (checked against its release 0.23.2 on committed
// corpora, for the fixture models of testdata/models and variants of them).
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
//     ByteLevel (add_prefix_space, use_regex), Metaspace (replacement,
//     prepend_scheme first/always/never, split; "first" prepends only to the
//     piece that begins where the text begins) and Sequence. The split pattern
//     of Qwen2/Qwen3 and of Llama-3 has a hand-written scanner; any other
//     pattern runs on github.com/dlclark/regexp2 (a backtracking engine with
//     lookaround and Unicode classes, like the Oniguruma engine tokenizers
//     uses).
//   - BPE: merges as "a b" strings or ["a", "b"] pairs, ignore_merges,
//     byte_fallback (a character outside the vocabulary becomes its <0xXX>
//     byte tokens), unk_token/fuse_unk, continuing_subword_prefix and
//     end_of_word_suffix. A dropout above zero is refused: it makes encoding
//     random.
//   - Post-processors: ByteLevel (adds nothing), TemplateProcessing (single
//     sequence; the BOS of Gemma and Llama), RobertaProcessing,
//     BertProcessing and Sequence; they run only when special tokens are
//     requested, which Encode does (as tokenizers' encode does by default).
//     EncodeWith with NoSpecialTokens is add_special_tokens=False, which is
//     what vLLM uses for a rendered chat template (the template writes the
//     BOS itself); vLLM's completions endpoint adds them.
//   - Decoders: ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace and
//     Sequence, and none (tokens joined by a space, as tokenizers does).
//     ByteLevel makes bytes that are not UTF-8 one U+FFFD per maximal invalid
//     subpart (Rust's String::from_utf8_lossy); ByteFallback makes a run of
//     byte tokens that is not UTF-8 one U+FFFD per byte. Ids the tokenizer
//     does not know are skipped.
//
// Files that tokenizers refuses (a Metaspace whose add_prefix_space
// contradicts its prepend_scheme, a ByteLevel without add_prefix_space, ...)
// are refused with ErrBadInput; well-formed files with a model, normalizer,
// pre-tokenizer, post-processor or decoder this package does not implement
// with ErrUnsupported, never run approximately.
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
// lock-free word cache. Added tokens are found by their first two bytes and
// then compared one by one, or through a trie where many share those bytes.
// Loading reads the vocabulary and merges with a small scanner (about
// 0.15 s for the 11 MB Qwen3 file; about 0.5 s of CPU and 40 MB kept for
// Gemma 3's 33 MB file with 262,144 pieces and 514,906 merges) and falls
// back to encoding/json for anything unusual. scripts/bench_tokenizer.sh
// compares the speed with tokenizers' Node binding on the same texts.
//
// # Streaming
//
// Tokenizer.NewStream returns an incremental decoder for generated ids: its
// output never splits a UTF-8 sequence, and its concatenated output (with
// Flush) equals Decode of the same ids. Each decoder step runs as a stage
// that passes on only what later ids cannot change: a run of byte-fallback
// tokens is held until a token that is not a byte ends it (one bad byte
// turns the whole run into U+FFFD), Strip holds trailing characters it may
// still remove, Replace after Fuse holds a tail that may begin a match.
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
