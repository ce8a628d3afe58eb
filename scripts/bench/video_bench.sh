#!/usr/bin/env bash
# Video preprocessing benchmark: a 20-second 1280x720 30 fps H.264 clip
# (FFmpeg testsrc2, synthesized here, not committed) preprocessed by mmgate
# (internal/videoprep) and by the Python reference doing the same work
# (scripts/golden/video_reference.py: FFmpeg decode of the same stream,
# Pillow/NumPy on the sampled frames), for Qwen3-VL and Qwen2.5-VL, with the
# pixel_values hashes compared. Needs Debian's ffmpeg. Run it on a quiet
# machine:
#
#   scripts/bench/video_bench.sh [REPEAT]      (default 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
repeat="${1:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ffmpeg -v error -nostdin -f lavfi -i testsrc2=size=1280x720:rate=30 -t 20 \
	-c:v libx264 -pix_fmt yuv420p -preset veryfast -crf 23 "$tmp/clip720.mp4"
go test -c -o "$tmp/videoprep.test" ./internal/videoprep
exec /usr/bin/python3 scripts/bench/video_bench.py --test-bin "$tmp/videoprep.test" \
	--video "$tmp/clip720.mp4" --repeat "$repeat"
