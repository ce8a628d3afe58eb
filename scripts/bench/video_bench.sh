#!/usr/bin/env bash
# Video preprocessing benchmark: `mmgate preprocess --model qwen3-vl` as a
# whole command on a 20-second 1280x720 30 fps H.264 clip (FFmpeg testsrc2,
# synthesized here, not committed) against the Python reference doing the
# same work (scripts/golden/video_reference.py: FFmpeg decode of the same
# stream, Pillow/NumPy on the sampled frames), whole command and in-process,
# with the pixel_values hashes compared first. How each side is timed is
# written in scripts/bench/video_bench.py. Needs Debian's ffmpeg and
# hyperfine. Timing conclusions need a quiet machine; the last line is the
# host's steal share of CPU time during the run (scripts/bench/steal.sh).
#
#   scripts/bench/video_bench.sh [REPEAT]      (default 5; QUICK=1: 2 runs, no warm-up)
#   MODELS="qwen3-vl qwen2.5-vl" scripts/bench/video_bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
repeat="${1:-5}"
warmup=1
if [ -n "${QUICK:-}" ]; then repeat=2; warmup=0; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ffmpeg -v error -nostdin -f lavfi -i testsrc2=size=1280x720:rate=30 -t 20 \
	-c:v libx264 -pix_fmt yuv420p -preset veryfast -crf 23 "$tmp/clip720.mp4"
go build -o "$tmp/mmgate" ./cmd/mmgate
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit+dirty"; fi
models=()
for m in ${MODELS:-qwen3-vl}; do models+=(--model "$m"); done
. scripts/bench/steal.sh
steal_begin
/usr/bin/python3 scripts/bench/video_bench.py --mmgate "$tmp/mmgate" --video "$tmp/clip720.mp4" \
	--repeat "$repeat" --warmup "$warmup" --commit "$commit" "${models[@]}"
steal_report
