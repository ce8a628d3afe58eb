#!/usr/bin/env bash
# Gateway benchmark with an independent load generator: builds mmgate, makes
# IMAGES (default 96) distinct 1280×960 JPEGs from the Debian wallpaper
# photos (scripts/bench/gateway_images.py) and one non-streaming chat
# request body per image (data: URL), starts
#   mmgate serve --embedded-worker --embedded-fingerprint crc32c --cache-bytes 0
# on a free loopback port with a private shared-memory directory, sends two
# unmeasured image requests, then runs wrk -t2 -c8 for DURATION (default
# 30s) cycling over the bodies (scripts/bench/wrk_chat.lua) while
# `mmgate bench probe`, a process of its own, sends a text-only request
# every PROBE_INTERVAL (default 10ms); stops the gateway, runs the Python
# reference's one-process rate on the same images
# (scripts/bench/gateway_reference.py: vLLM loader + HF slow Qwen3-VL
# processor) and prints, with the commit:
#   - gateway images/s ÷ Python images/s              (target ≥ 8)
#   - text probe p99 ÷ image median latency            (target ≤ 0.10)
#   - errors (wrk's and failed probes)                 (required 0)
# and the host's steal share of CPU time from the load to the end
# (scripts/bench/steal.sh). Timing conclusions need a quiet machine.
#
#   scripts/bench_gateway_wrk.sh
#   QUICK=1 scripts/bench_gateway_wrk.sh          (16 images, 5 s: a smoke run)
#   IMAGES=96 DURATION=60s OUT=/tmp/gw scripts/bench_gateway_wrk.sh
# SERVE_ARGS adds flags to `mmgate serve`. OUT keeps load.json,
# reference.json, summary.json and the gateway's log. Exit status: 0 when
# the runs completed without errors (targets met or not), 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench/gateway_lib.sh
IMAGES=${IMAGES:-96}
DURATION=${DURATION:-30s}
PROBE_INTERVAL=${PROBE_INTERVAL:-10ms}
if [ -n "${QUICK:-}" ]; then
	IMAGES=16
	DURATION=5s
fi
commit=$(bench_commit)

bench_setup
bench_build
echo "making $IMAGES images and request bodies…" >&2
pylimit=$((30 + IMAGES / 4))
timeout "$pylimit" "$PY" scripts/bench/gateway_images.py --count "$IMAGES" "$work/images"
count=$("$PY" scripts/bench/gateway_wrk.py bodies "$work/images" "$work/bodies")

# shellcheck disable=SC2086 # SERVE_ARGS holds several flags
bench_start_gateway --cache-bytes 0 ${SERVE_ARGS:-}
for k in 0 1; do
	curl -fsS -o /dev/null -H 'Content-Type: application/json' \
		--data-binary "@$(printf '%s/bodies/body%04d.json' "$work" $((k % count)))" "$url/v1/chat/completions"
done

. scripts/bench/steal.sh
steal_begin
echo "load: wrk -t2 -c8 for $DURATION against $url, text probe every $PROBE_INTERVAL…" >&2
timeout 300 "$PY" scripts/bench/gateway_wrk.py load --mmgate "$work/mmgate" --url "$url" \
	--bodies "$work/bodies" --count "$count" --duration "$DURATION" --probe-interval "$PROBE_INTERVAL" \
	>"$out/load.json"
bench_stop_gateway

echo "Python reference on the same images…" >&2
timeout "$pylimit" "$PY" scripts/bench/gateway_reference.py "$work/images" >"$out/reference.json"

rc=0
"$PY" scripts/bench/gateway_wrk.py summary "$out/load.json" "$out/reference.json" --commit "$commit" \
	--out "$out/summary.json" || rc=$?
steal_report
if [ -n "${OUT:-}" ]; then echo "reports in $out" >&2; fi
exit "$rc"
