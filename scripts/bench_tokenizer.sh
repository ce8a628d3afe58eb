#!/usr/bin/env bash
# Compares the Go tokenizer's encode speed with Hugging Face tokenizers (the
# Rust library's native Node binding) on the same texts, in one run, and
# prints the ratios. Run it on a quiet machine.
#
#   scripts/bench_tokenizer.sh            # 3 s per measurement
#   BENCHTIME=10s SECONDS_PER=10 scripts/bench_tokenizer.sh
#
# The reference is installed from npm into TOKREF_DIR (default
# /tmp/mmgate-tokref), outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${TOKREF_DIR:-/tmp/mmgate-tokref}
BENCHTIME=${BENCHTIME:-3s}
SECONDS_PER=${SECONDS_PER:-3}

if [ ! -d "$REF/node_modules/tokenizers" ]; then
  mkdir -p "$REF"
  npm install --prefix "$REF" --no-audit --no-fund tokenizers@0.23.2 >&2
fi

go_out=$(go test -run '^$' -bench '^BenchmarkEncode(CorpusLines|Mixed|LongWords)$' -benchtime "$BENCHTIME" -count 1 ./tokenizer/)
echo "$go_out" | grep '^Benchmark' >&2
node_out=$(NODE_PATH="$REF/node_modules" node scripts/golden/tokenizer_bench.mjs "$SECONDS_PER")
echo "$node_out" >&2

GO_OUT="$go_out" NODE_OUT="$node_out" node -e '
const goMB = {};
for (const l of process.env.GO_OUT.split("\n")) {
  const m = l.match(/^Benchmark(\w+?)(-\d+)?\s.*\s([\d.]+) MB\/s/);
  if (m) goMB[m[1]] = Number(m[3]);
}
const hf = {};
for (const l of process.env.NODE_OUT.trim().split("\n")) { const o = JSON.parse(l); hf[o.name] = o.mb_per_s; }
const row = (name, g, h) => console.log(`${name.padEnd(40)} go ${g.toFixed(2).padStart(8)} MB/s   hf ${h.toFixed(2).padStart(8)} MB/s   ratio ${(g / h).toFixed(1)}x`);
row("corpus lines (one call per line)", goMB.EncodeCorpusLines, hf.EncodeCorpusLines);
row("mixed 0.3 MB (hf: one call)", goMB.EncodeMixed, hf.EncodeMixed);
row("mixed 0.3 MB (hf: 40 calls of 8 KB)", goMB.EncodeMixed, hf.EncodeMixedChunks);
row("long words 0.1 MB (hf: 40 calls)", goMB.EncodeLongWords, hf.EncodeLongWords);
'
