// Command wktset writes a FileDescriptorSet holding the well-known types that
// mmgate's .proto files import (google/protobuf/struct.proto and
// timestamp.proto) to standard output. protoc reads it with
// --descriptor_set_in, so regenerating the Go code needs no system copy of
// the well-known .proto sources, and the imported descriptors are exactly
// the ones compiled into the pinned google.golang.org/protobuf module.
package main

import (
	"fmt"
	"os"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func main() {
	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(structpb.File_google_protobuf_struct_proto),
		protodesc.ToFileDescriptorProto(timestamppb.File_google_protobuf_timestamp_proto),
	}}
	out, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err == nil {
		_, err = os.Stdout.Write(out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wktset:", err)
		os.Exit(1)
	}
}
