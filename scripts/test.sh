#!/usr/bin/env bash
# The test command: sets up a fresh machine, then runs the default suite
# (unit, golden-parity, end-to-end and fuzz-smoke tests; well under 15 minutes
# on 2 cores). Long benchmarks and soak tests are separate (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

go vet ./...
go test -count=1 ./...

# Exactness must not depend on the CPU level or on the assembly kernels:
# GOAMD64=v3 lets the compiler fuse multiply-adds (the code must prevent it),
# and the purego tag runs the portable kernels.
GOAMD64=v3 go test -count=1 ./imaging/resample/ ./vision/... ./tensor/
go test -count=1 -tags purego ./imaging/resample/

# The pure-Go build must keep working (decoders without cgo say they are not
# Pillow-exact).
CGO_ENABLED=0 go build -o /dev/null ./cmd/mmgate
