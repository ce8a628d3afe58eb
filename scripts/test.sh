#!/usr/bin/env bash
# The test command: sets up a fresh machine, then runs the default suite
# (unit, golden-parity, end-to-end and fuzz-smoke tests; well under 15 minutes
# on 2 cores). Long benchmarks and soak tests are separate (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

go vet ./...
go test -count=1 ./...

# The pure-Go build must keep working (decoders without cgo say they are not
# Pillow-exact).
CGO_ENABLED=0 go build -o /dev/null ./cmd/mmgate
