#!/usr/bin/env bash
# The test command: sets up a fresh machine, then runs the default suite
# (unit, golden-parity, end-to-end, hardening and fuzz-smoke tests; 10–14
# minutes on 2 cores). Long fuzzing (make fuzz-long), soak and load runs
# (mmgate bench soak) and the benchmark scripts are separate (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --test

go vet ./...

# The pure-Go build must keep working: its decoders say they are not
# Pillow-exact, and the lossless ones still match the goldens.
CGO_ENABLED=0 go build -o /dev/null ./cmd/mmgate
CGO_ENABLED=0 go test -count=1 ./media/ ./internal/imageprep/

# Exactness must not depend on the CPU level or on the assembly kernels:
# GOAMD64=v3 lets the compiler fuse multiply-adds (the code must prevent it),
# and the purego tag runs the portable kernels.
GOAMD64=v3 go test -count=1 ./imaging/resample/ ./vision/... ./tensor/
go test -count=1 -tags purego ./imaging/resample/

# Every fuzz target for a few seconds, from its committed seed corpus.
./scripts/fuzz.sh "${FUZZ_SECONDS:-3}"

# The Helm chart, rendered with Helm's Go packages and decoded strictly
# (a module of its own, so Helm stays out of the product's go.mod).
(cd deploy/helm/charttest && go test -count=1 ./...)

# The whole suite last, so that its summary closes the output.
go test -count=1 ./...
