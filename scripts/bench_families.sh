#!/usr/bin/env bash
# Benchmark of `mmgate preprocess` for each model family (Gemma 3, with and
# without pan-and-scan, LLaVA-1.5, LLaVA-NeXT, InternVL, GLM-4V) on three
# photos of testdata/photos: the whole command (hyperfine) and the
# in-process time it logs, against the family's Python reference's
# in-process time (scripts/golden/*_reference.py, Debian Pillow 9.4 + NumPy
# 1.24), in the same run, after checking that both sides give the same
# pixel_values sha256. How each side is timed is written in
# scripts/bench/families_bench.py. Prints JSON, then a table of the ratios
# and the commit. Needs hyperfine. Timing conclusions need a quiet machine.
#
#   scripts/bench_families.sh [REPEAT] [FAMILY,...]     (default 5, all)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-5}"
warmup=2
families="${2:-gemma3,gemma3-pan-and-scan,llava,llava-next,internvl,glm4v}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/mmgate" ./cmd/mmgate
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit+dirty"; fi
photos=(testdata/photos/Garden.jpg testdata/photos/Aqua.jpg testdata/photos/YellowFlower.jpg)
/usr/bin/python3 scripts/bench/families_bench.py --mmgate "$tmp/mmgate" --tmp "$tmp" \
	--repeat "$repeat" --warmup "$warmup" --commit "$commit" --families "$families" "${photos[@]}"
