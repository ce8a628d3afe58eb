// Package prefixtree is an approximate, per-worker record of the prompt
// prefixes each inference worker has recently been sent, so that a router
// can send a prompt to the worker whose prefix (KV) cache most likely
// already holds its beginning. It follows the token tree of SMG's
// cache_aware policy (lightseekorg/smg, crates/kv_index token_tree.rs): one
// radix tree shared by the workers of a model, each node listing the
// workers ("tenants") that own it with their last access; keys compared a
// page of PageSize (16) tokens at a time, as engines cache whole pages, so a
// prompt shorter than a page neither matches nor is recorded.
//
// # Keys
//
// A prompt is its token ids plus the spans of media placeholder tokens
// (Prompt). Inside a span every position is keyed by the media item's
// content hash instead of the pad token id, so two prompts share a prefix
// through an image only when it is the same image: two different images
// with the same number of pad tokens never match (engines key those
// positions by the item's hash the same way). Keys turns a Prompt into the
// key sequence; token ids and media keys never collide (media keys have the
// top bit set, token ids are 32-bit).
//
// # Bounds
//
// Each worker owns at most Options.MaxTokens keys: past that, its least
// recently used leaves are evicted (leaf first, so what a worker owns is
// always a set of whole prefixes) down to 7/8 of the bound, which keeps the
// eviction walk rare. Entries a worker has not touched for Options.MaxAge
// are dropped by a sweep that runs at most every SweepInterval, on the next
// insert. Forget drops a worker at once. Memory is therefore bounded by
// about MaxTokens × 8 bytes per worker plus node overhead.
//
// # Concurrency
//
// A Tree is safe for concurrent use; every method holds its one lock.
// MatchInsert runs its choose function under that lock, so a match, the
// decision and the insert of the chosen worker are one atomic step.
package prefixtree
