#!/usr/bin/env bash
# Benchmark of `mmgate preprocess` against the Python reference
# (scripts/golden/reference_preprocess.py, Debian Pillow 9.4 + NumPy 1.24) and
# against `djpeg -rgb` (libjpeg-turbo-progs), on the three 2560×1600 photos of
# testdata/photos, at the Qwen2.5-VL default budget and at --max-pixels
# 1003520; then the peak memory (VmHWM) of one `mmgate preprocess` on one photo
# at the default budget against its float32 tensor size. How each side is
# timed is documented in scripts/bench/preprocess_bench.py. Run it on a quiet
# machine:
#
#   scripts/bench_preprocess.sh [REPEAT]      (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-5}"
bin="$(mktemp -d)/mmgate"
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/mmgate
photos=(testdata/photos/Garden.jpg testdata/photos/Aqua.jpg testdata/photos/YellowFlower.jpg)
exec /usr/bin/python3 scripts/bench/preprocess_bench.py --mmgate "$bin" --model qwen2.5-vl \
	--cap 1003520 --repeat "$repeat" "${photos[@]}"
