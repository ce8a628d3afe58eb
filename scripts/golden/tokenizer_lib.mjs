// Helpers shared by the tokenizer golden scripts.

// rng returns a deterministic pseudo-random generator (mulberry32) of numbers in [0, 1).
export function rng(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// patched returns a copy of a parsed tokenizer.json with top-level keys replaced; the key
// "added_tokens_append" appends to added_tokens instead.
export function patched(base, patch) {
  const t = structuredClone(base);
  for (const [k, val] of Object.entries(patch)) {
    if (k === 'added_tokens_append') t.added_tokens.push(...val);
    else t[k] = val;
  }
  return t;
}
