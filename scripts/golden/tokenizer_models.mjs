// Writes the goldens of the fixture-model tokenizers (testdata/models/*) and their variants
// (tokenizer/testdata/model_variants.json) with Hugging Face tokenizers (the Rust library's
// Node binding):
//   tokenizer/testdata/golden_model_ids.jsonl.gz  {"variant","name","ids","ids_plain"} for every
//       text of corpus.jsonl and corpus_models.jsonl; ids with add_special_tokens true (the
//       default), ids_plain with false
//   tokenizer/testdata/golden_model_decode.jsonl.gz {"variant","name","ids"?,"skip_special","text"}:
//       decode of those ids (ids left out) and of byte-token, leading-space and random id
//       sequences (ids given)
//   tokenizer/testdata/golden_model_vocab.jsonl   {"variant","vocab_size"}: get_vocab_size(true)
//   tokenizer/testdata/golden_model_load.jsonl    {"name","ok","error"}: whether each case of
//       model_load_cases.json (llava-1.5 with keys replaced) loads
// Usage (see scripts/golden/package.json for the version):
//   node scripts/golden/tokenizer_corpus.mjs   # only when the corpus or variants change
//   node scripts/golden/tokenizer_models.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { patched, rng } from './tokenizer_lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, 'package.json'));
const { Tokenizer } = require('tokenizers');
const td = join(here, '../../tokenizer/testdata');
const models = join(here, '../../testdata/models');

const jsonl = (f) => readFileSync(join(td, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const corpus = [...jsonl('corpus.jsonl'), ...jsonl('corpus_models.jsonl')];
const variants = JSON.parse(readFileSync(join(td, 'model_variants.json'), 'utf8'));

const bases = {};
function base(name) {
  if (!bases[name]) {
    const path = name === 'qwen3' ? join(td, 'qwen3', 'tokenizer.json.gz') : join(models, name, 'tokenizer.json.gz');
    bases[name] = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8'));
  }
  return bases[name];
}

const build = (v) => patched(base(v.base), v.patch);

// Rust's Strip decoder panics (and aborts the process) where its two cuts cross or where the
// text is shorter than `stop` and all stripped characters: such sequences are left out.
function stripPanics(text, strip) {
  if (!strip) return false;
  const chars = [...text];
  let sc = 0;
  for (let i = 0; i < Math.min(strip.start, chars.length); i++) {
    if (chars[i] === strip.content) sc = i + 1; else break;
  }
  let tc = chars.length;
  for (let i = 0; i < strip.stop; i++) {
    if (i >= chars.length) return true;
    const idx = chars.length - i - 1;
    if (chars[idx] === strip.content) tc = idx; else break;
  }
  return sc > tc;
}

// The decoder without a final Strip whose stop is not zero, to test for its panic.
function unstripped(t) {
  const d = t.decoder;
  if (!d || d.type !== 'Sequence') return null;
  const last = d.decoders[d.decoders.length - 1];
  if (last.type !== 'Strip' || last.stop === 0) return null;
  const u = structuredClone(t);
  u.decoder.decoders.pop();
  return { tok: Tokenizer.fromString(JSON.stringify(u)), strip: last };
}

const ids = [];
const dec = [];
const sizes = [];
for (const v of variants) {
  const json = build(v);
  const tok = Tokenizer.fromString(JSON.stringify(json));
  sizes.push({ variant: v.name, vocab_size: tok.getVocabSize(true) });
  const guard = unstripped(json);
  const decode = async (seq, skip) => {
    if (guard && stripPanics(await guard.tok.decode(seq, skip), guard.strip)) return null;
    return tok.decode(seq, skip);
  };
  const isSP = json.model.byte_fallback === true;
  for (const e of corpus) {
    const got = (await tok.encode(e.text)).getIds();
    const plain = (await tok.encode(e.text, null, { addSpecialTokens: false })).getIds();
    ids.push({ variant: v.name, name: e.name, ids: got, ids_plain: plain });
    for (const skip of [false, true]) {
      const text = await decode(got, skip);
      if (text !== null) dec.push({ variant: v.name, name: e.name, skip_special: skip, text });
    }
  }
  if (!isSP) continue;

  // Byte tokens, alone and around other tokens.
  const byteID = (b) => tok.tokenToId(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
  const id = (s) => {
    const x = tok.tokenToId(s);
    if (x === null || x === undefined) throw new Error(`${v.name}: no token ${s}`);
    return x;
  };
  const special = tok.tokenToId('<bos>') ?? tok.tokenToId('<s>');
  const seqs = {
    euro: [0xe2, 0x82, 0xac], cjk: [0xe4, 0xbd, 0xa0, 0xe5, 0xa5, 0xbd], emoji: [0xf0, 0x9f, 0x98, 0x80],
    truncated_3: [0xe4, 0xbd], truncated_4: [0xf0, 0x9f, 0x98], truncated_then_ascii: [0xf0, 0x9f, 0x98, 0x61],
    lone_continuation: [0x80], continuations: [0x80, 0xbf, 0x80], overlong: [0xc0, 0xaf],
    surrogate: [0xed, 0xa0, 0x80], above_max: [0xf4, 0x90, 0x80, 0x80], ff: [0xff], fe_ff: [0xfe, 0xff, 0x41],
    mixed: [0x61, 0xe2, 0x82, 0x62, 0xe2, 0x82, 0xac, 0xc3], space: [0x20], spaces: [0x20, 0x20, 0x41],
    newline: [0x0a], valid_then_bad: [0x41, 0xe2, 0x82, 0xac, 0xff],
  };
  const named = {};
  for (const [name, bytes] of Object.entries(seqs)) named[`bytes_${name}`] = bytes.map(byteID);
  const ws = id('\u2581');
  const hello = id('\u2581H');
  named.bytes_split_by_special = [byteID(0xe2), special, byteID(0x82), byteID(0xac), hello, byteID(0xe2), byteID(0x82), byteID(0xac)];
  named.bytes_split_by_token = [byteID(0xe4), hello, byteID(0xbd), byteID(0xa0)];
  named.special_then_bytes = [special, byteID(0x20), byteID(0xe2), byteID(0x82), byteID(0xac)];
  named.leading_metaspace = [ws, ws, hello, ws];
  named.leading_metaspace_after_special = [special, ws, hello];
  named.metaspace_only = [ws];
  named.byte_space_then_metaspace = [byteID(0x20), ws, hello];
  named.empty = [];
  named.unknown_only = [1 << 24];
  for (const [name, seq] of Object.entries(named)) {
    for (const skip of [false, true]) {
      const text = await decode(seq, skip);
      if (text !== null) dec.push({ variant: v.name, name, ids: seq, skip_special: skip, text });
    }
  }
  // Random sequences of byte tokens, vocabulary tokens, added tokens and unknown ids.
  const vocabSize = json.model.vocab ? Object.keys(json.model.vocab).length : 0;
  const added = json.added_tokens.map((a) => tok.tokenToId(a.content));
  const hi = tok.getVocabSize(true);
  const r = rng(11);
  for (let i = 0; i < 60; i++) {
    const n = Math.floor(r() * 24);
    const seq = [];
    for (let j = 0; j < n; j++) {
      const k = r();
      if (k < 0.4) seq.push(byteID(Math.floor(r() * 256)));
      else if (k < 0.7) seq.push(Math.floor(r() * vocabSize));
      else if (k < 0.8) seq.push([ws, hello, special][Math.floor(r() * 3)]);
      else if (k < 0.95) seq.push(added[Math.floor(r() * added.length)]);
      else seq.push(hi + Math.floor(r() * 1000));
    }
    for (const skip of [false, true]) {
      const text = await decode(seq, skip);
      if (text !== null) dec.push({ variant: v.name, name: `random_ids_${i}`, ids: seq, skip_special: skip, text });
    }
  }
}

writeFileSync(join(td, 'golden_model_vocab.jsonl'), sizes.map((e) => JSON.stringify(e)).join('\n') + '\n');

const loads = [];
for (const c of JSON.parse(readFileSync(join(td, 'model_load_cases.json'), 'utf8'))) {
  try {
    Tokenizer.fromString(JSON.stringify(build({ base: 'llava-1.5', patch: c.patch })));
    loads.push({ name: c.name, ok: true, error: '' });
  } catch (e) {
    loads.push({ name: c.name, ok: false, error: e.message });
  }
}
writeFileSync(join(td, 'golden_model_load.jsonl'), loads.map((e) => JSON.stringify(e)).join('\n') + '\n');

// The two large files are stored gzip-compressed.
const gz = (rows) => gzipSync(rows.map((e) => JSON.stringify(e)).join('\n') + '\n', { level: 9 });
writeFileSync(join(td, 'golden_model_ids.jsonl.gz'), gz(ids));
writeFileSync(join(td, 'golden_model_decode.jsonl.gz'), gz(dec));
console.error(`wrote ${ids.length} encodings and ${dec.length} decodings`);
