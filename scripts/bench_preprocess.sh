#!/usr/bin/env bash
# Whole-command benchmark of `mmgate preprocess --model qwen2.5-vl` on three
# 2560x1600 photos (4:4:4 baseline, 4:2:0 baseline, 4:2:2 progressive; made
# by scripts/bench/make_bench_photos.sh from testdata/photos) against the
# Python reference's in-process time (scripts/golden/reference_preprocess.py,
# Debian Pillow 9.4 + NumPy 1.24), at the default budget and at
# --max-pixels 1003520; against `djpeg -rgb` decoding the three files one
# after another; and the peak memory (VmHWM) of one `mmgate preprocess` on
# one photo against its float32 tensor. How each side is timed is written in
# scripts/bench/preprocess_bench.py. Prints JSON, then the ratios and the
# commit, then the host's steal share of CPU time (scripts/bench/steal.sh).
# Needs hyperfine and libjpeg-turbo-progs. Timing conclusions need a quiet
# machine.
#
#   scripts/bench_preprocess.sh [REPEAT]      (default 10; QUICK=1: 3 runs, no warm-up)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-10}"
warmup=2
if [ -n "${QUICK:-}" ]; then repeat=3; warmup=0; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/mmgate" ./cmd/mmgate
scripts/bench/make_bench_photos.sh "$work/photos"
. scripts/bench/steal.sh
steal_begin
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit+dirty"; fi
/usr/bin/python3 scripts/bench/preprocess_bench.py --mmgate "$work/mmgate" --model qwen2.5-vl \
	--cap 1003520 --repeat "$repeat" --warmup "$warmup" --commit "$commit" \
	"$work/photos/444_baseline.jpg" "$work/photos/420_baseline.jpg" "$work/photos/422_progressive.jpg"
steal_report
