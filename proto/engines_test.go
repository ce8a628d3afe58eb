package proto

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
)

// The field-fact notation of testdata/engines.md (the vLLM and SGLang
// protocol facts the .proto files were written from).
var (
	engSectionRe = regexp.MustCompile("^### `([\\w.]+)`")
	engServiceRe = regexp.MustCompile(`^\*\*service (\w+)\*\*: (.*)$`)
	engMethodRe  = regexp.MustCompile(`^(\w+)\(([\w.]+)\) → (stream )?([\w.]+)$`)
	engMessageRe = regexp.MustCompile(`^- \*\*(\w+)\*\* \{(.*)\}$`)
	engEnumRe    = regexp.MustCompile(`^- enum \*\*(\w+)\*\*: (.*)$`)
	engFieldRe   = regexp.MustCompile(`^(\d+) (\w+): (optional |repeated )?(.+?)(?: \(oneof (\w+)\))?$`)
	engReservRe  = regexp.MustCompile(`^reserved ([\d, ]+)$`)
)

// specMethod is one method of a service line in engines.md.
type specMethod struct {
	name, in, out string
	stream        bool
}

// qualify gives a spec type its full name: scalars stay, bare message names
// take the section's package, map values likewise.
func qualify(pkg, typ string) string {
	if k, v, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(typ, "map<"), ">"), ", "); ok && strings.HasPrefix(typ, "map<") {
		return "map<" + qualify(pkg, k) + ", " + qualify(pkg, v) + ">"
	}
	if strings.Contains(typ, ".") || typ == strings.ToLower(typ) {
		return typ
	}
	return pkg + "." + typ
}

func engMessage(t *testing.T, full string) protoreflect.MessageDescriptor {
	t.Helper()
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(full))
	if err != nil {
		t.Fatalf("%s not generated", full)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		t.Fatalf("%s is not a message", full)
	}
	return md
}

// checkSpecMessage compares one "- **Name** {...}" line with the generated
// message: every field (number, name, label, type, oneof), the reserved
// numbers, and that the message has no field the line omits.
func checkSpecMessage(t *testing.T, pkg, name, body string) int {
	md := engMessage(t, pkg+"."+name)
	var reserved []int
	fields := 0
	for _, part := range strings.Split(body, "; ") {
		if part == "" {
			continue
		}
		if m := engReservRe.FindStringSubmatch(part); m != nil {
			for _, n := range strings.Split(m[1], ", ") {
				v, _ := strconv.Atoi(n)
				reserved = append(reserved, v)
			}
			continue
		}
		m := engFieldRe.FindStringSubmatch(part)
		if m == nil {
			t.Errorf("%s: cannot read field %q", name, part)
			continue
		}
		fields++
		num, _ := strconv.Atoi(m[1])
		fd := md.Fields().ByNumber(protoreflect.FieldNumber(num))
		if fd == nil {
			t.Errorf("%s: field %d (%s) missing", name, num, m[2])
			continue
		}
		oneof := ""
		if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
			oneof = string(o.Name())
		}
		if string(fd.Name()) != m[2] || typeName(fd) != qualify(pkg, m[4]) || oneof != m[5] ||
			(m[3] == "repeated ") != fd.IsList() || (m[3] == "optional ") != fd.HasOptionalKeyword() {
			t.Errorf("%s.%d: generated %s %s list=%v optional=%v oneof=%q; spec %q", name, num, fd.Name(),
				typeName(fd), fd.IsList(), fd.HasOptionalKeyword(), oneof, part)
		}
	}
	if fields != md.Fields().Len() {
		t.Errorf("%s: %d fields generated, spec lists %d", name, md.Fields().Len(), fields)
	}
	var got []int
	for i := 0; i < md.ReservedRanges().Len(); i++ {
		r := md.ReservedRanges().Get(i)
		for n := r[0]; n < r[1]; n++ {
			got = append(got, int(n))
		}
	}
	if !slices.Equal(got, reserved) {
		t.Errorf("%s: reserved %v generated, spec %v", name, got, reserved)
	}
	return fields
}

// checkSpecService compares a service line with the generated service and
// returns its methods.
func checkSpecService(t *testing.T, pkg, name, list string) []specMethod {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(pkg + "." + name))
	if err != nil {
		t.Fatalf("service %s.%s not generated", pkg, name)
	}
	sd := d.(protoreflect.ServiceDescriptor)
	var methods []specMethod
	for _, part := range strings.Split(list, "; ") {
		m := engMethodRe.FindStringSubmatch(part)
		if m == nil {
			t.Fatalf("%s: cannot read method %q", name, part)
		}
		methods = append(methods, specMethod{m[1], qualify(pkg, m[2]), qualify(pkg, m[4]), m[3] != ""})
	}
	if sd.Methods().Len() != len(methods) {
		t.Errorf("%s: %d methods generated, spec lists %d", name, sd.Methods().Len(), len(methods))
	}
	for i, sm := range methods {
		md := sd.Methods().ByName(protoreflect.Name(sm.name))
		if md == nil {
			t.Errorf("%s.%s missing", name, sm.name)
			continue
		}
		if md.Index() != i || string(md.Input().FullName()) != sm.in || string(md.Output().FullName()) != sm.out ||
			md.IsStreamingServer() != sm.stream || md.IsStreamingClient() {
			t.Errorf("%s.%s: generated #%d %s -> %s (stream %v), spec %+v", name, sm.name, md.Index(),
				md.Input().FullName(), md.Output().FullName(), md.IsStreamingServer(), sm)
		}
	}
	return methods
}

// TestMatchesEnginesSpec reads every service, message and enum line of
// testdata/engines.md and checks the generated vllm.grpc.engine,
// sglang.grpc.scheduler and smg.grpc.common code against it, and that the
// generated packages hold no message the spec does not list.
func TestMatchesEnginesSpec(t *testing.T) {
	doc, err := os.ReadFile("testdata/engines.md")
	if err != nil {
		t.Fatal(err)
	}
	pkg, fields, listed := "", 0, map[string]bool{}
	services := map[string][]specMethod{}
	for _, line := range strings.Split(string(doc), "\n") {
		if m := engSectionRe.FindStringSubmatch(line); m != nil {
			pkg = m[1]
		} else if m := engServiceRe.FindStringSubmatch(line); m != nil {
			services[pkg+"."+m[1]] = checkSpecService(t, pkg, m[1], m[2])
		} else if m := engMessageRe.FindStringSubmatch(line); m != nil {
			fields += checkSpecMessage(t, pkg, m[1], m[2])
			listed[pkg+"."+m[1]] = true
		} else if m := engEnumRe.FindStringSubmatch(line); m != nil {
			checkSpecEnum(t, pkg+"."+m[1], m[2])
		}
	}
	for _, path := range []string{"vllm_engine.proto", "sglang_scheduler.proto", "common.proto"} {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < fd.Messages().Len(); i++ {
			if name := string(fd.Messages().Get(i).FullName()); !listed[name] {
				t.Errorf("%s: message %s is not in the spec", path, name)
			}
		}
	}
	if len(services) != 2 || len(listed) != 91 || fields < 397 {
		t.Fatalf("read %d services, %d messages, %d fields from the spec", len(services), len(listed), fields)
	}
	checkMethodPaths(t, services)
	t.Logf("checked %d services, %d messages, %d fields", len(services), len(listed), fields)
}

func checkSpecEnum(t *testing.T, full, values string) {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(full))
	if err != nil {
		t.Fatalf("enum %s not generated", full)
	}
	ed := d.(protoreflect.EnumDescriptor)
	parts := strings.Split(values, ", ")
	if ed.Values().Len() != len(parts) {
		t.Errorf("%s: %d values generated, spec lists %d", full, ed.Values().Len(), len(parts))
	}
	for _, p := range parts {
		name, num, _ := strings.Cut(p, "=")
		n, _ := strconv.Atoi(num)
		if v := ed.Values().ByName(protoreflect.Name(name)); v == nil || int(v.Number()) != n {
			t.Errorf("%s: value %s", full, p)
		}
	}
}

// checkMethodPaths checks that the generated clients call, and the generated
// service descriptions register, exactly the paths the spec lists, with
// server streaming where it says "stream".
func checkMethodPaths(t *testing.T, services map[string][]specMethod) {
	constants := map[string]string{
		vllmpb.VllmEngine_Generate_FullMethodName:                      "",
		vllmpb.VllmEngine_Embed_FullMethodName:                         "",
		vllmpb.VllmEngine_HealthCheck_FullMethodName:                   "",
		vllmpb.VllmEngine_Abort_FullMethodName:                         "",
		vllmpb.VllmEngine_GetModelInfo_FullMethodName:                  "",
		vllmpb.VllmEngine_GetServerInfo_FullMethodName:                 "",
		vllmpb.VllmEngine_GetLoads_FullMethodName:                      "",
		vllmpb.VllmEngine_GetTokenizer_FullMethodName:                  "",
		vllmpb.VllmEngine_SubscribeKvEvents_FullMethodName:             "",
		sglangpb.SglangScheduler_Generate_FullMethodName:               "",
		sglangpb.SglangScheduler_Embed_FullMethodName:                  "",
		sglangpb.SglangScheduler_HealthCheck_FullMethodName:            "",
		sglangpb.SglangScheduler_Abort_FullMethodName:                  "",
		sglangpb.SglangScheduler_GetModelInfo_FullMethodName:           "",
		sglangpb.SglangScheduler_GetServerInfo_FullMethodName:          "",
		sglangpb.SglangScheduler_GetLoads_FullMethodName:               "",
		sglangpb.SglangScheduler_FlushCache_FullMethodName:             "",
		sglangpb.SglangScheduler_StartProfile_FullMethodName:           "",
		sglangpb.SglangScheduler_StopProfile_FullMethodName:            "",
		sglangpb.SglangScheduler_GetTokenizer_FullMethodName:           "",
		sglangpb.SglangScheduler_SubscribeKvEvents_FullMethodName:      "",
		sglangpb.SglangScheduler_LoadLoRAAdapter_FullMethodName:        "",
		sglangpb.SglangScheduler_UnloadLoRAAdapter_FullMethodName:      "",
		sglangpb.SglangScheduler_ListLoadedLoRAAdapters_FullMethodName: "",
	}
	descs := map[string]grpc.ServiceDesc{
		"vllm.grpc.engine.VllmEngine":           vllmpb.VllmEngine_ServiceDesc,
		"sglang.grpc.scheduler.SglangScheduler": sglangpb.SglangScheduler_ServiceDesc,
	}
	paths := 0
	for svc, methods := range services {
		desc := descs[svc]
		registered := map[string]bool{}
		for _, m := range desc.Methods {
			registered[m.MethodName] = false
		}
		for _, s := range desc.Streams {
			registered[s.StreamName] = s.ServerStreams && !s.ClientStreams
		}
		if desc.ServiceName != svc || len(registered) != len(methods) {
			t.Errorf("%s: service description %s registers %d methods, spec lists %d", svc, desc.ServiceName, len(registered), len(methods))
		}
		for _, m := range methods {
			path := "/" + svc + "/" + m.name
			if _, ok := constants[path]; !ok {
				t.Errorf("no generated constant for %s", path)
			}
			delete(constants, path)
			if stream, ok := registered[m.name]; !ok || stream != m.stream {
				t.Errorf("%s: registered %v (stream %v), spec stream %v", path, ok, stream, m.stream)
			}
			paths++
		}
	}
	for c := range constants {
		t.Errorf("generated constant %s is not in the spec", c)
	}
	if paths != 24 {
		t.Errorf("checked %d method paths, want 24", paths)
	}
}
