// Reference media spans of vLLM's render (features.mm_placeholders) for the
// prompt references: for every case of prompt/testdata/render_golden.json it
// builds each media item's replacement token sequence as vLLM's Qwen-VL
// processors build it (vllm/model_executor/models/qwen2_vl.py, qwen3_vl.py:
// an image, and a Qwen2-VL / Qwen2.5-VL video, become a run of their pad
// token; a Qwen3-VL video becomes, per temporal group, the ids of
// "<{t:.1f} seconds>" tokenized alone (add_special_tokens=False),
// <|vision_start|>, the group's pads and <|vision_end|>) and finds it in the
// prompt's ids as vLLM finds placeholders: per modality, each item's
// sequence at or after the end of the previous item's match. The span is the
// whole match (vLLM's PlaceholderRange offset and length).
// Inputs: render_texts.json (pad counts and timestamps per item, from
// prompt_reference.py), render_golden.json (input ids, from prompt_ids.mjs),
// the fixture config.json files (special token ids) and the Qwen3 tokenizer.
// Usage: node scripts/golden/render_ranges.mjs
//   → internal/systest/render/testdata/vllm_placeholders.json
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, 'package.json'));
const { Tokenizer } = require('tokenizers');
const td = join(here, '../../prompt/testdata');
const tok = Tokenizer.fromString(gunzipSync(readFileSync(join(here, '../../tokenizer/testdata/qwen3/tokenizer.json.gz'))).toString('utf8'));

const texts = JSON.parse(readFileSync(join(td, 'render_texts.json'), 'utf8')).results;
const golden = new Map(JSON.parse(readFileSync(join(td, 'render_golden.json'), 'utf8')).results.map((r) => [r.name, r]));

function config(model) {
  const c = JSON.parse(readFileSync(join(td, 'models', model, 'config.json'), 'utf8'));
  const pick = (k) => c[k] ?? c.text_config?.[k];
  return { start: pick('vision_start_token_id'), end: pick('vision_end_token_id') };
}

// find returns the first index >= from where seq occurs in ids.
function find(ids, seq, from) {
  outer: for (let i = from; i + seq.length <= ids.length; i++) {
    for (let k = 0; k < seq.length; k++) if (ids[i + k] !== seq[k]) continue outer;
    return i;
  }
  throw new Error(`replacement of ${seq.length} tokens not found after ${from}`);
}

async function videoSequence(v, cfg, tokens, timestamps) {
  if (!timestamps) return Array(tokens).fill(v);
  const per = tokens / timestamps.length;
  const seq = [];
  for (const t of timestamps) {
    const enc = await tok.encode(`<${t} seconds>`, null, { addSpecialTokens: false });
    seq.push(...enc.getIds(), cfg.start, ...Array(per).fill(v), cfg.end);
  }
  return seq;
}

const out = [];
for (const r of texts) {
  const ids = golden.get(r.name).input_ids;
  const cfg = config(r.name.split('/')[0]);
  const spans = {};
  try {
    await spansOf(r, ids, cfg, spans);
  } catch (e) {
    out.push({ name: r.name, error: e.message });
    continue;
  }
  out.push({ name: r.name, mm_placeholders: spans });
}

async function spansOf(r, ids, cfg, spans) {
  let from = 0;
  for (const n of r.image_tokens) {
    const at = find(ids, Array(n).fill(r.image_token_id), from);
    (spans.image ??= []).push({ offset: at, length: n });
    from = at + n;
  }
  from = 0;
  for (const [i, n] of (r.video_tokens ?? []).entries()) {
    const seq = await videoSequence(r.video_token_id, cfg, n, r.video_timestamps[i]);
    const at = find(ids, seq, from);
    (spans.video ??= []).push({ offset: at, length: seq.length });
    from = at + seq.length;
  }
}
const doc = { generator: 'scripts/golden/render_ranges.mjs', tokenizers: require('tokenizers/package.json').version, cases: out };
writeFileSync(join(here, '../../internal/systest/render/testdata/vllm_placeholders.json'), JSON.stringify(doc, null, 1) + '\n');
