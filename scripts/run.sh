#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, and run mmgate on the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
go build -o bin/mmgate ./cmd/mmgate
exec ./bin/mmgate version
