// Adds token ids to the family prompt references: reads the output of
// family_prompts.py (its path is the first argument), tokenizes each
// expanded prompt with the model folder's tokenizer.json and Hugging Face
// tokenizers (the Rust library's Node binding, the version pinned in
// package.json) without the post-processor's special tokens (vLLM's
// add_special_tokens=False for chat prompts), finds the maximal runs of the
// pad token and writes cmd/mmgate/testdata/family_prompts.json. To keep the
// file small, each run is stored as one pad in "ids" and its length in
// "placeholders": widening every run gives the input ids.
// "mm_placeholders" are the images' spans as vLLM's render gives them: each
// image's replacement tokenized alone (add_special_tokens=False, as vLLM's
// processors tokenize a prompt update) and found in the ids at or after the
// previous image's match; offset and length of the match. For Gemma 3 the
// search reads "\n\n\n" as "\n" + "\n\n" and "\n\n\n\n" as "\n\n" +
// "\n\n", and a match starting inside such a token starts at it, as
// vllm/model_executor/models/gemma3_mm.py's _find_mm_placeholders does.
// Usage: /usr/bin/python3 scripts/golden/family_prompts.py && node scripts/golden/family_prompt_ids.mjs /tmp/family_prompts_text.json
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, 'package.json'));
const { Tokenizer } = require('tokenizers');
const root = join(here, '../..');

const texts = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const tokenizers = new Map();
const results = [];
for (const r of texts.results) {
  if (!tokenizers.has(r.model)) {
    const json = gunzipSync(readFileSync(join(root, 'testdata/models', r.model, 'tokenizer.json.gz'))).toString('utf8');
    tokenizers.set(r.model, Tokenizer.fromString(json));
  }
  const tok = tokenizers.get(r.model);
  const enc = await tok.encode(r.expanded, null, { addSpecialTokens: false });
  const all = Array.from(enc.getIds());
  const pad = tok.tokenToId(r.pad);
  if (pad === null) throw new Error(`${r.name}: no token ${r.pad}`);
  const ids = [];
  const placeholders = [];
  for (let i = 0; i < all.length; i++) {
    if (all[i] !== pad) {
      ids.push(all[i]);
      continue;
    }
    let j = i;
    while (j < all.length && all[j] === pad) j++;
    placeholders.push({ modality: 'image', offset: i, length: j - i });
    ids.push(pad);
    i = j - 1;
  }
  const mm = await vllmSpans(r, tok, all);
  results.push({ name: r.name, prompt: r.prompt, ids, placeholders, mm_placeholders: mm });
}

// vllmSpans finds each replacement of r in ids as vLLM does.
async function vllmSpans(r, tok, ids) {
  // The ids as vLLM's search reads them, with the index of each one's
  // source token.
  const read = [];
  const from = [];
  const split = new Map();
  if (r.model === 'gemma3') {
    const nl = [1, 2, 3, 4].map((n) => tok.tokenToId('\n'.repeat(n)));
    split.set(nl[2], [nl[0], nl[1]]);
    split.set(nl[3], [nl[1], nl[1]]);
  }
  ids.forEach((id, i) => {
    for (const p of split.get(id) ?? [id]) {
      read.push(p);
      from.push(i);
    }
  });
  const spans = [];
  let at = 0;
  for (const rep of r.replacements) {
    const seq = Array.from((await tok.encode(rep, null, { addSpecialTokens: false })).getIds());
    const k = findSeq(read, seq, at);
    if (k < 0) throw new Error(`${r.name}: replacement of ${seq.length} tokens not found after ${at}`);
    spans.push({ offset: from[k], length: seq.length });
    at = k + seq.length;
  }
  return { image: spans };
}

// findSeq returns the first index >= start where seq occurs in ids, or -1.
function findSeq(ids, seq, start) {
  outer: for (let i = start; i + seq.length <= ids.length; i++) {
    for (let k = 0; k < seq.length; k++) if (ids[i + k] !== seq[k]) continue outer;
    return i;
  }
  return -1;
}
const out = {
  generator: 'scripts/golden/family_prompts.py + scripts/golden/family_prompt_ids.mjs',
  tokenizers: require('tokenizers/package.json').version,
  cases: texts.cases,
  results,
};
writeFileSync(join(root, 'cmd/mmgate/testdata/family_prompts.json'), JSON.stringify(out) + '\n');
