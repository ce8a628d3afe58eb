#!/bin/sh
# Regenerates the Go code for proto/*.proto. protoc comes from Debian
# (protobuf-compiler); the Go plugins are pinned as tool dependencies in go.mod
# and run with `go tool`. The well-known types the files import
# (google/protobuf/struct.proto, timestamp.proto) come from the pinned Go
# protobuf module as a descriptor set, so no system copy of their sources is
# needed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
go build -o "$bin/protoc-gen-go-grpc" google.golang.org/grpc/cmd/protoc-gen-go-grpc
go run ./proto/internal/wktset >"$bin/wkt.binpb"

protoc --version >&2
PATH="$bin:$PATH" protoc \
	-I proto \
	--descriptor_set_in="$bin/wkt.binpb" \
	--go_out=. --go_opt=module=github.com/mmgate/mmgate \
	--go-grpc_out=. --go-grpc_opt=module=github.com/mmgate/mmgate \
	proto/common.proto proto/tokenspeed_scheduler.proto \
	proto/vllm_engine.proto proto/sglang_scheduler.proto
