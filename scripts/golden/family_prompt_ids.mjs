// Adds token ids to the family prompt references: reads the output of
// family_prompts.py (its path is the first argument), tokenizes each
// expanded prompt with the model folder's tokenizer.json and Hugging Face
// tokenizers (the Rust library's Node binding, the version pinned in
// package.json) without the post-processor's special tokens (vLLM's
// add_special_tokens=False for chat prompts), finds the maximal runs of the
// pad token and writes cmd/mmgate/testdata/family_prompts.json. To keep the
// file small, each run is stored as one pad in "ids" and its length in
// "placeholders": widening every run gives the input ids.
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
  results.push({ name: r.name, prompt: r.prompt, ids, placeholders });
}
const out = {
  generator: 'scripts/golden/family_prompts.py + scripts/golden/family_prompt_ids.mjs',
  tokenizers: require('tokenizers/package.json').version,
  cases: texts.cases,
  results,
};
writeFileSync(join(root, 'cmd/mmgate/testdata/family_prompts.json'), JSON.stringify(out) + '\n');
