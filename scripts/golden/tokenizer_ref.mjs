// Writes the tokenizer goldens with Hugging Face tokenizers (the Rust library's Node binding):
//   tokenizer/testdata/golden_ids.jsonl     {"variant","name","ids"} for every corpus text and variant
//   tokenizer/testdata/golden_decode.jsonl  {"variant","name","ids"?,"skip_special","text"}
// Usage (the reference is installed outside the repository; package.json pins its version):
//   npm install --prefix /tmp/mmgate-tokref tokenizers@0.23.2
//   node scripts/golden/tokenizer_corpus.mjs   # only when the corpus or variants change
//   NODE_PATH=/tmp/mmgate-tokref/node_modules node scripts/golden/tokenizer_ref.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { patched, rng } from './tokenizer_lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, 'package.json'));
const { Tokenizer } = require('tokenizers');
const td = join(here, '../../tokenizer/testdata');

const corpus = readFileSync(join(td, 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const variants = JSON.parse(readFileSync(join(td, 'variants.json'), 'utf8'));
const qwen3 = JSON.parse(gunzipSync(readFileSync(join(td, 'qwen3', 'tokenizer.json.gz'))).toString('utf8'));

function build(v) {
  return v.base === null ? v.patch : patched(qwen3, v.patch);
}

// The GPT-2 byte-to-character table, to name the token of a single byte.
function byteChars() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n); n++; }
  const m = new Array(256);
  bs.forEach((b, i) => { m[b] = String.fromCodePoint(cs[i]); });
  return m;
}

const ids = [];
const dec = [];
for (const v of variants) {
  const tok = Tokenizer.fromString(JSON.stringify(build(v)));
  for (const e of corpus) {
    const enc = await tok.encode(e.text);
    const got = enc.getIds();
    ids.push({ variant: v.name, name: e.name, ids: got });
    if (v.decode) {
      for (const skip of [false, true]) {
        dec.push({ variant: v.name, name: e.name, skip_special: skip, text: await tok.decode(got, skip) });
      }
    }
  }
  if (v.name !== 'qwen3') continue;
  // Byte sequences that are not UTF-8, and random id sequences.
  const bc = byteChars();
  const byteID = (b) => tok.tokenToId(bc[b]);
  const hi = tok.getVocabSize(true);
  const seqs = {
    truncated_3: [0xe4, 0xbd], truncated_4: [0xf0, 0x9f, 0x98], truncated_then_ascii: [0xf0, 0x9f, 0x98, 0x61],
    lone_continuation: [0x80], continuations: [0x80, 0xbf, 0x80], overlong: [0xc0, 0xaf], overlong_3: [0xe0, 0x80, 0xaf],
    surrogate: [0xed, 0xa0, 0x80], above_max: [0xf4, 0x90, 0x80, 0x80], ff: [0xff], fe_ff: [0xfe, 0xff, 0x41],
    f5: [0xf5, 0x80], mixed: [0x61, 0xe2, 0x82, 0x62, 0xe2, 0x82, 0xac, 0xc3], c2_end: [0x41, 0xc2],
    e0_a0: [0xe0, 0xa0], f0_90: [0xf0, 0x90, 0x80], f4_8f: [0xf4, 0x8f, 0xbf, 0xbf, 0xf4, 0x8f],
  };
  for (const [name, bytes] of Object.entries(seqs)) {
    const seq = bytes.map(byteID);
    for (const skip of [false, true]) dec.push({ variant: v.name, name: `bytes_${name}`, ids: seq, skip_special: skip, text: await tok.decode(seq, skip) });
  }
  const withSpecial = [byteID(0xe4), 151644, byteID(0xbd), byteID(0xa0), 151667, byteID(0xf0), 151645];
  for (const skip of [false, true]) dec.push({ variant: v.name, name: 'bytes_split_by_added', ids: withSpecial, skip_special: skip, text: await tok.decode(withSpecial, skip) });
  const r = rng(7);
  for (let i = 0; i < 40; i++) {
    const n = Math.floor(r() * 24);
    const seq = [];
    for (let j = 0; j < n; j++) {
      const k = r();
      if (k < 0.5) seq.push(byteID(Math.floor(r() * 256)));
      else if (k < 0.8) seq.push(Math.floor(r() * 151643));
      else if (k < 0.95) seq.push(151643 + Math.floor(r() * (hi - 151643)));
      else seq.push(hi + Math.floor(r() * 1000));
    }
    for (const skip of [false, true]) dec.push({ variant: v.name, name: `random_ids_${i}`, ids: seq, skip_special: skip, text: await tok.decode(seq, skip) });
  }
}

writeFileSync(join(td, 'golden_ids.jsonl'), ids.map((e) => JSON.stringify(e)).join('\n') + '\n');
writeFileSync(join(td, 'golden_decode.jsonl'), dec.map((e) => JSON.stringify(e)).join('\n') + '\n');
console.error(`wrote ${ids.length} encodings and ${dec.length} decodings`);
