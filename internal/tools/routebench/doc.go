// Package routebench measures what routing does for a prefix cache:
// multi-turn image conversations over N reference workers (processes of an
// mmgate binary, each modelling an engine's prefix cache and charging for
// the prompt tokens it did not find there, `mmgate worker --prefill-rate`)
// behind one gateway, once per policy, with fresh workers for each. Every
// conversation starts with its own image; each next turn sends the whole
// history again, as chat clients do, so a worker that served the earlier
// turns holds most of the prompt.
//
// For each policy it reports the cache-hit rate (cached prompt tokens over
// prompt tokens, as the workers report them in usage) over all turns and
// over follow-up turns, and the latency of first and follow-up turns. The
// numbers mean something only on a quiet machine; `mmgate bench routing
// --short` runs a small version anywhere.
//
// Run is not safe for concurrent use with the same WorkDir.
package routebench
