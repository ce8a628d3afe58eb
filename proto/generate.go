// Package proto holds the .proto sources of the gRPC worker protocols mmgate
// speaks, each wire-compatible with the definitions in lightseekorg/smg
// (crates/grpc_client/proto), and, in its subpackages, the generated Go code:
//
//   - common (package smg.grpc.common): messages shared by all three;
//   - scheduler (package tokenspeed.grpc.scheduler, service
//     TokenSpeedScheduler);
//   - vllm (package vllm.grpc.engine, service VllmEngine);
//   - sglang (package sglang.grpc.scheduler, service SglangScheduler).
//
// Method paths, field numbers, types and names equal upstream's; the tests
// compare every message, field and method with the upstream descriptors
// (testdata/smg_descriptors.binpb), with the specs (testdata/wire.md,
// testdata/engines.md), and decode golden encodings that upstream's own
// definitions produced (scripts/golden/proto_goldens.py), re-encoding them
// byte for byte. The generated code is committed; scripts/proto.sh
// regenerates it with protoc and the protoc-gen-go / protoc-gen-go-grpc
// versions pinned in go.mod. Generated messages follow protobuf-go's rules:
// a message value is not safe for concurrent mutation.
package proto

//go:generate sh ../scripts/proto.sh
