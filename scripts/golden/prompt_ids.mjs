// Adds token ids to the prompt references: reads prompt/testdata/render_texts.json
// (written by prompt_reference.py), tokenizes each expanded prompt with Hugging Face
// tokenizers (the Rust library's Node binding, the version pinned in package.json)
// and the Qwen3 tokenizer.json, finds the maximal runs of the image (and video) pad id, and writes
// prompt/testdata/render_golden.json.
// Usage: (cd scripts/golden && npm install --no-save) && node scripts/golden/prompt_ids.mjs
// (or with NODE_PATH pointing at a node_modules that holds tokenizers).
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, 'package.json'));
const { Tokenizer } = require('tokenizers');
const td = join(here, '../../prompt/testdata');
const tokJSON = gunzipSync(readFileSync(join(here, '../../tokenizer/testdata/qwen3/tokenizer.json.gz'))).toString('utf8');
const tok = Tokenizer.fromString(tokJSON);

const texts = JSON.parse(readFileSync(join(td, 'render_texts.json'), 'utf8'));
const results = [];
for (const r of texts.results) {
  const enc = await tok.encode(r.expanded);
  const ids = Array.from(enc.getIds());
  // Maximal runs of the image pad id and, for cases with videos, of the video
  // pad id (a timestamped video has one run per temporal group).
  const pads = new Map([[r.image_token_id, 'image']]);
  if (r.video_token_id !== undefined) pads.set(r.video_token_id, 'video');
  const placeholders = [];
  for (let i = 0; i < ids.length; i++) {
    const modality = pads.get(ids[i]);
    if (modality === undefined) continue;
    let j = i;
    while (j < ids.length && ids[j] === ids[i]) j++;
    placeholders.push({ modality, offset: i, length: j - i });
    i = j - 1;
  }
  results.push({ name: r.name, prompt: r.prompt, input_ids: ids, placeholders });
}
const out = { generator: 'scripts/golden/prompt_reference.py + scripts/golden/prompt_ids.mjs', tokenizers: require('tokenizers/package.json').version, results };
writeFileSync(join(td, 'render_golden.json'), JSON.stringify(out) + '\n');
