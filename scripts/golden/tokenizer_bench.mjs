// Measures Hugging Face tokenizers' encode speed (MB/s) on the texts the Go
// benchmarks in tokenizer/bench_test.go use: the corpus texts one by one
// (EncodeCorpusLines); the corpus without its long_* stress entries joined by
// newlines and repeated 40 times, about 0.3 MB of prose, code, markup and many
// scripts, as one call (EncodeMixed) and as 40 calls of one copy each
// (EncodeMixedChunks; the binding slows down on very long inputs, so this is
// its better case); and the long_* entries likewise, in 40 calls
// (EncodeLongWords). Prints one JSON line per measurement.
// Usage: node scripts/golden/tokenizer_bench.mjs [seconds per measurement]
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, 'package.json'));
const { Tokenizer } = require('tokenizers');
const td = join(here, '../../tokenizer/testdata');
const seconds = Number(process.argv[2] || 3);

const entries = readFileSync(join(td, 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const lines = entries.map((e) => e.text);
const doc = entries.filter((e) => !e.name.startsWith('long_')).map((e) => e.text).join('\n');
const longDoc = entries.filter((e) => e.name.startsWith('long_')).map((e) => e.text).join('\n');
const mixed = doc.repeat(40);
const tok = Tokenizer.fromString(gunzipSync(readFileSync(join(td, 'qwen3', 'tokenizer.json.gz'))).toString('utf8'));

async function measure(name, bytes, fn) {
  await fn(); // warm up (fills the BPE cache, as the Go benchmark's first iterations do)
  let n = 0;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let el = 0;
  while (el < seconds) {
    await fn();
    n++;
    el = Number(process.hrtime.bigint() - t0) / 1e9;
  }
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6; // all threads of the process
  console.log(JSON.stringify({ name, mb_per_s: (bytes * n) / el / 1e6, mb_per_cpu_s: (bytes * n) / cpu / 1e6, iterations: n }));
}

const lineBytes = lines.reduce((a, l) => a + Buffer.byteLength(l), 0);
await measure('EncodeCorpusLines', lineBytes, async () => { for (const l of lines) await tok.encode(l); });
await measure('EncodeMixed', Buffer.byteLength(mixed), async () => { await tok.encode(mixed); });
await measure('EncodeMixedChunks', Buffer.byteLength(doc) * 40, async () => { for (let i = 0; i < 40; i++) await tok.encode(doc); });
await measure('EncodeLongWords', Buffer.byteLength(longDoc) * 40, async () => { for (let i = 0; i < 40; i++) await tok.encode(longDoc); });
