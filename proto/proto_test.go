package proto

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/mmgate/mmgate/proto/common"
	_ "github.com/mmgate/mmgate/proto/scheduler"
)

var (
	msgLine  = regexp.MustCompile(`\*\*(\w+)\*\*(?: \{\})?:? ?([^*]*)`)
	fieldRe  = regexp.MustCompile("(\\d+) `(optional |repeated )?(map<\\w+, \\w+>|[\\w.]+) (\\w+)`")
	methodRe = regexp.MustCompile(`^\| (\w+) \| ([\w.]+) \| (\*\*stream\*\* )?([\w.]+) \|$`)
)

func lookup(t *testing.T, name string) protoreflect.MessageDescriptor {
	t.Helper()
	for _, pkg := range []string{"tokenspeed.grpc.scheduler.", "smg.grpc.common."} {
		if strings.Contains(name, ".") {
			pkg = ""
		}
		if d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(pkg + name)); err == nil {
			if md, ok := d.(protoreflect.MessageDescriptor); ok {
				return md
			}
		}
	}
	t.Fatalf("message %s not generated", name)
	return nil
}

func typeName(f protoreflect.FieldDescriptor) string {
	if f.IsMap() {
		return "map<" + typeName(f.MapKey()) + ", " + typeName(f.MapValue()) + ">"
	}
	switch f.Kind() {
	case protoreflect.MessageKind:
		return string(f.Message().FullName())
	case protoreflect.EnumKind:
		return string(f.Enum().FullName())
	}
	return f.Kind().String()
}

// TestMatchesWireSpec checks every message field (number, label, type, name)
// and every method listed in testdata/wire.md against the generated code.
func TestMatchesWireSpec(t *testing.T) {
	doc, err := os.ReadFile("testdata/wire.md")
	if err != nil {
		t.Fatal(err)
	}
	fields, methods := 0, 0
	for _, line := range strings.Split(string(doc), "\n") {
		if m := methodRe.FindStringSubmatch(line); m != nil && m[1] != "method" {
			methods++
			sd, err := protoregistry.GlobalFiles.FindDescriptorByName("tokenspeed.grpc.scheduler.TokenSpeedScheduler")
			if err != nil {
				t.Fatal(err)
			}
			md := sd.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(m[1]))
			if md == nil {
				t.Errorf("method %s missing", m[1])
				continue
			}
			if md.Input().FullName() != lookup(t, m[2]).FullName() || md.Output().FullName() != lookup(t, m[4]).FullName() ||
				md.IsStreamingServer() != (m[3] != "") || md.IsStreamingClient() {
				t.Errorf("method %s: %s -> %s (stream %v)", m[1], md.Input().FullName(), md.Output().FullName(), md.IsStreamingServer())
			}
			continue
		}
		if !strings.HasPrefix(line, "- **") {
			continue
		}
		for _, seg := range strings.Split(line, ". **") {
			if !strings.HasPrefix(seg, "**") {
				seg = "**" + seg
			}
			seg = strings.TrimPrefix(seg, "- ")
			mm := msgLine.FindStringSubmatch(seg)
			if mm == nil || mm[1] == "Modality" {
				continue
			}
			md := lookup(t, mm[1])
			specFields := fieldRe.FindAllStringSubmatch(seg, -1)
			if len(specFields) != md.Fields().Len() {
				t.Errorf("%s: %d fields generated, spec lists %d", mm[1], md.Fields().Len(), len(specFields))
			}
			for _, f := range specFields {
				fields++
				fd := md.Fields().ByName(protoreflect.Name(f[4]))
				if fd == nil {
					t.Errorf("%s.%s missing", mm[1], f[4])
					continue
				}
				want := f[3]
				if !strings.Contains(want, ".") && !strings.HasPrefix(want, "map<") && want != strings.ToLower(want) {
					want = string(md.ParentFile().Package()) + "." + want
				}
				if v, ok := strings.CutPrefix(want, "map<string, "); ok && v != strings.ToLower(v) {
					want = "map<string, " + string(md.ParentFile().Package()) + "." + v
				}
				if strconv.Itoa(int(fd.Number())) != f[1] || typeName(fd) != want ||
					(f[2] == "repeated ") != (fd.IsList()) || (f[2] == "optional ") != fd.HasOptionalKeyword() {
					t.Errorf("%s.%s: generated %d %s (list %v optional %v), spec %s %s%s", mm[1], f[4], fd.Number(), typeName(fd), fd.IsList(), fd.HasOptionalKeyword(), f[1], f[2], f[3])
				}
			}
		}
	}
	if methods != 11 || fields < 150 {
		t.Fatalf("parsed %d methods and %d fields from the spec", methods, fields)
	}
	t.Logf("checked %d methods, %d fields", methods, fields)
}
