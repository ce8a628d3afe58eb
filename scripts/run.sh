#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, and run the gateway with its
# embedded reference worker on the bundled demo model (Qwen3-VL). It listens
# on 127.0.0.1:8080 and prints a curl command that sends an image. Extra
# arguments go to `mmgate serve` (e.g. --listen 0.0.0.0:8080).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
go build -o bin/mmgate ./cmd/mmgate
exec ./bin/mmgate serve --embedded-worker "$@"
