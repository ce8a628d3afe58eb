// Package routing holds the worker pickers beyond the engine's
// least_loaded and round_robin: cache_aware, power_of_two and
// consistent_hash, each a pure function of its inputs, plus CacheAware, the
// state cache_aware needs (a prefix tree per model and a routed-request
// count per worker).
//
// # cache_aware (SMG's semantics)
//
// The picker follows lightseekorg/smg model_gateway/src/policies/
// cache_aware.rs with its defaults (cache_threshold 0.5,
// balance_abs_threshold 32, balance_rel_threshold 1.1):
//
//  1. The candidates are imbalanced when max load − min load >
//     BalanceAbs and max load > min load × BalanceRel (both must hold);
//     then the least loaded wins.
//  2. Otherwise the longest prefix match wins when matched / prompt
//     tokens > Cache (strictly); among equal matches, the less loaded,
//     then as "least loaded" breaks ties.
//  3. Otherwise (a miss) the least loaded wins.
//
// "Least loaded" breaks ties towards the worker whose tree holds the least
// cached prefix data (the smallest tree, the rule SMG's cache_aware.rs
// states for a miss), then by the routed-request count, then by order, so
// new conversations spread over equally loaded workers. The chosen
// worker's tree learns the prompt in every case.
//
// # power_of_two and consistent_hash
//
// PowerOfTwo draws two distinct candidates and takes the less loaded (the
// first drawn on a tie), as SMG's power_of_two does with request counts.
// Ring is SMG's consistent-hash ring: 150 virtual nodes per worker at the
// first 8 bytes (little-endian) of BLAKE3("URL#i"), a key going to the
// first usable worker clockwise from BLAKE3(key); RoutingKey picks the key
// (a session header, else the first user message).
//
// # Concurrency
//
// The pickers are pure. CacheAware and Ring are safe for concurrent use.
package routing
