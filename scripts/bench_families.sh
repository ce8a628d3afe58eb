#!/usr/bin/env bash
# Benchmark of `mmgate preprocess` for each model family (Gemma 3, with and
# without pan-and-scan, LLaVA-1.5, LLaVA-NeXT, InternVL, GLM-4V) against the
# family's Python reference (scripts/golden/*_reference.py, Debian Pillow
# 9.4 + NumPy 1.24), on the same photos in the same run, after checking that
# both sides give the same bytes. How each side is timed is documented in
# scripts/bench/families_bench.py. Run it on a quiet machine:
#
#   scripts/bench_families.sh [REPEAT] [FAMILY,...]     (default 5, all)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-5}"
families="${2:-gemma3,gemma3-pan-and-scan,llava,llava-next,internvl,glm4v}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/mmgate" ./cmd/mmgate
photos=(testdata/photos/Garden.jpg testdata/photos/Aqua.jpg testdata/photos/YellowFlower.jpg)
exec /usr/bin/python3 scripts/bench/families_bench.py --mmgate "$tmp/mmgate" --tmp "$tmp" \
	--repeat "$repeat" --families "$families" "${photos[@]}"
