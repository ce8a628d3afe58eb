// Package proto holds the .proto sources of the TokenSpeed scheduler protocol
// (wire-compatible with SMG's workers) and, in its subpackages, the generated
// Go code: common (package smg.grpc.common) and scheduler (package
// tokenspeed.grpc.scheduler, service TokenSpeedScheduler). The generated code
// is committed; scripts/proto.sh regenerates it with protoc and the
// protoc-gen-go / protoc-gen-go-grpc versions pinned in go.mod.
package proto

//go:generate sh ../scripts/proto.sh
