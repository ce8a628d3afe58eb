package proto

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	_ "github.com/mmgate/mmgate/proto/common"
	_ "github.com/mmgate/mmgate/proto/scheduler"
	_ "github.com/mmgate/mmgate/proto/sglang"
	_ "github.com/mmgate/mmgate/proto/vllm"
)

// wireFacts renders what a file fixes on the wire and in tooling, one line
// per fact, order-free: package, imports, every message with its fields
// (number, name, label, type, proto3 optional, oneof), reserved numbers and
// names, enum values, and every method with its types and streaming.
// Comments, options and declaration order are left out: they differ from
// upstream's by design and change nothing a peer sees.
func wireFacts(fd *descriptorpb.FileDescriptorProto) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	add("package %s", fd.GetPackage())
	for _, dep := range fd.GetDependency() {
		add("import %s", dep)
	}
	var message func(prefix string, m *descriptorpb.DescriptorProto)
	message = func(prefix string, m *descriptorpb.DescriptorProto) {
		name := prefix + "." + m.GetName()
		add("message %s map_entry=%v", name, m.GetOptions().GetMapEntry())
		for _, f := range m.GetField() {
			oneof := ""
			if f.OneofIndex != nil {
				oneof = m.GetOneofDecl()[f.GetOneofIndex()].GetName()
			}
			add("field %s %d %s %s %s %s optional=%v oneof=%s", name, f.GetNumber(), f.GetName(),
				f.GetLabel(), f.GetType(), f.GetTypeName(), f.GetProto3Optional(), oneof)
		}
		for _, r := range m.GetReservedRange() {
			add("reserved %s %d-%d", name, r.GetStart(), r.GetEnd())
		}
		for _, r := range m.GetReservedName() {
			add("reserved %s %s", name, r)
		}
		for _, e := range m.GetEnumType() {
			enum(add, name, e)
		}
		for _, n := range m.GetNestedType() {
			message(name, n)
		}
	}
	for _, m := range fd.GetMessageType() {
		message(fd.GetPackage(), m)
	}
	for _, e := range fd.GetEnumType() {
		enum(add, fd.GetPackage(), e)
	}
	for _, s := range fd.GetService() {
		for _, m := range s.GetMethod() {
			add("rpc /%s.%s/%s %s -> %s client_stream=%v server_stream=%v", fd.GetPackage(), s.GetName(),
				m.GetName(), m.GetInputType(), m.GetOutputType(), m.GetClientStreaming(), m.GetServerStreaming())
		}
	}
	sort.Strings(out)
	return out
}

func enum(add func(string, ...any), prefix string, e *descriptorpb.EnumDescriptorProto) {
	for _, v := range e.GetValue() {
		add("enum %s.%s %s=%d", prefix, e.GetName(), v.GetName(), v.GetNumber())
	}
	for _, r := range e.GetReservedRange() {
		add("enum reserved %s.%s %d-%d", prefix, e.GetName(), r.GetStart(), r.GetEnd())
	}
}

// TestMatchesUpstream compares every generated file with the upstream
// definition it must be wire-compatible with (lightseekorg/smg's
// crates/grpc_client/proto, compiled by scripts/golden/proto_goldens.py into
// testdata/smg_descriptors.binpb).
func TestMatchesUpstream(t *testing.T) {
	raw, err := os.ReadFile("testdata/smg_descriptors.binpb")
	if err != nil {
		t.Fatal(err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	want := []string{"common.proto", "tokenspeed_scheduler.proto", "vllm_engine.proto", "sglang_scheduler.proto"}
	if len(set.GetFile()) != len(want) {
		t.Fatalf("descriptor set holds %d files, want %d", len(set.GetFile()), len(want))
	}
	for i, up := range set.GetFile() {
		if up.GetName() != want[i] {
			t.Fatalf("file %d is %s, want %s", i, up.GetName(), want[i])
		}
		ours, err := protoregistry.GlobalFiles.FindFileByPath(up.GetName())
		if err != nil {
			t.Fatalf("%s: not generated: %v", up.GetName(), err)
		}
		got, exp := wireFacts(protodesc.ToFileDescriptorProto(ours)), wireFacts(up)
		if missing, extra := diffLines(exp, got); len(missing)+len(extra) > 0 {
			t.Errorf("%s differs from upstream:\n  upstream only:\n    %s\n  ours only:\n    %s", up.GetName(),
				strings.Join(missing, "\n    "), strings.Join(extra, "\n    "))
		} else {
			t.Logf("%s: %d facts equal upstream's", up.GetName(), len(exp))
		}
	}
}

// diffLines returns the lines only in a and the lines only in b (both sorted).
func diffLines(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return onlyA, onlyB
}
