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
const goMB = {}, goCPU = {};
for (const l of process.env.GO_OUT.split("\n")) {
  const m = l.match(/^Benchmark(\w+?)(-\d+)?\s.*\s([\d.]+) MB\/s/);
  if (m) goMB[m[1]] = Number(m[3]);
  const c = l.match(/^Benchmark(\w+?)(-\d+)?\s.*\s([\d.]+) MB\/cpu-s/);
  if (c) goCPU[c[1]] = Number(c[3]);
}
const hf = {}, hfCPU = {};
for (const l of process.env.NODE_OUT.trim().split("\n")) { const o = JSON.parse(l); hf[o.name] = o.mb_per_s; hfCPU[o.name] = o.mb_per_cpu_s; }
const f = (x) => (x === undefined ? "?" : x.toFixed(2)).padStart(8);
console.log(`${"".padEnd(38)} ${"wall MB/s: go".padStart(14)} ${"hf".padStart(8)} ${"ratio".padStart(7)}   ${"MB/cpu-s: go".padStart(13)} ${"hf".padStart(8)} ${"ratio".padStart(7)}`);
const row = (name, g, h) => console.log(`${name.padEnd(38)} ${f(goMB[g]).padStart(14)} ${f(hf[h])} ${(goMB[g] / hf[h]).toFixed(1).padStart(6)}x   ${f(goCPU[g]).padStart(13)} ${f(hfCPU[h])} ${(goCPU[g] / hfCPU[h]).toFixed(1).padStart(6)}x`);
row("corpus lines (one call per line)", "EncodeCorpusLines", "EncodeCorpusLines");
row("mixed 0.3 MB (hf: one call)", "EncodeMixed", "EncodeMixed");
row("mixed 0.3 MB (hf: 40 calls of 8 KB)", "EncodeMixed", "EncodeMixedChunks");
row("long words 0.1 MB (hf: 40 calls)", "EncodeLongWords", "EncodeLongWords");
'
