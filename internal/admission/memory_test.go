package admission

import (
	"testing"
	"testing/fstest"
)

func TestMachine(t *testing.T) {
	meminfo := &fstest.MapFile{Data: []byte("MemTotal:       24576000 kB\nMemFree:        100 kB\n")}
	const ram = 24576000 * 1024
	cases := []struct {
		name   string
		files  fstest.MapFS
		bytes  int64
		source string
	}{
		{"no cgroup file", fstest.MapFS{"proc/meminfo": meminfo}, ram, "physical"},
		{"v2 limit", fstest.MapFS{
			"proc/meminfo":                     meminfo,
			"proc/self/cgroup":                 {Data: []byte("0::/pod/app\n")},
			"sys/fs/cgroup/cgroup.controllers": {Data: []byte("memory\n")},
			"sys/fs/cgroup/pod/app/memory.max": {Data: []byte("max\n")},
			"sys/fs/cgroup/pod/memory.max":     {Data: []byte("4294967296\n")},
		}, 4 << 30, "cgroup"},
		{"v2 unlimited", fstest.MapFS{
			"proc/meminfo":                     meminfo,
			"proc/self/cgroup":                 {Data: []byte("0::/a\n")},
			"sys/fs/cgroup/cgroup.controllers": {Data: []byte("memory\n")},
			"sys/fs/cgroup/a/memory.max":       {Data: []byte("max\n")},
		}, ram, "physical"},
		{"v1 limit, hybrid unified without one", fstest.MapFS{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": {Data: []byte("4:memory:/process_api/x\n1:cpu,cpuacct:/\n0::/\n")},
			"sys/fs/cgroup/memory/memory.limit_in_bytes":               {Data: []byte("9223372036854771712\n")},
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": {Data: []byte("2147483648\n")},
			"sys/fs/cgroup/unified/cgroup.controllers":                 {Data: []byte("\n")},
		}, 2 << 30, "cgroup"},
		{"limit above RAM", fstest.MapFS{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": {Data: []byte("7:memory:/big\n")},
			"sys/fs/cgroup/memory/big/memory.limit_in_bytes": {Data: []byte("99999999999999\n")},
		}, ram, "physical"},
	}
	for _, c := range cases {
		m, err := Machine(c.files)
		if err != nil || m.Bytes != c.bytes || m.Source != c.source {
			t.Errorf("%s: %+v %v, want %d %s", c.name, m, err, c.bytes, c.source)
		}
	}
	if _, err := Machine(fstest.MapFS{"proc/meminfo": {Data: []byte("nothing\n")}}); err == nil {
		t.Error("meminfo without MemTotal accepted")
	}
}

func TestDefaultBudget(t *testing.T) {
	b, m, err := DefaultBudget()
	if err != nil {
		t.Skipf("no /proc/meminfo here: %v", err)
	}
	if b <= 0 || b != int64(float64(m.Bytes)*DefaultFraction) {
		t.Errorf("budget %d of %+v", b, m)
	}
}

// FuzzMachine: any contents of meminfo, the cgroup list and a limit file
// give a positive memory or an error, never a panic.
func FuzzMachine(f *testing.F) {
	f.Add([]byte("MemTotal: 1024 kB\n"), []byte("0::/a\n"), []byte("4096\n"))
	f.Add([]byte("MemTotal: 99999999999999999999 kB\n"), []byte("3:memory:/x\n"), []byte("max\n"))
	f.Add([]byte(""), []byte("::::\n"), []byte("-5"))
	f.Fuzz(func(t *testing.T, meminfo, cgroup, limit []byte) {
		fsys := fstest.MapFS{
			"proc/meminfo":                                 {Data: meminfo},
			"proc/self/cgroup":                             {Data: cgroup},
			"sys/fs/cgroup/cgroup.controllers":             {Data: []byte("memory\n")},
			"sys/fs/cgroup/a/memory.max":                   {Data: limit},
			"sys/fs/cgroup/memory/x/memory.limit_in_bytes": {Data: limit},
		}
		m, err := Machine(fsys)
		if err == nil && (m.Bytes <= 0 || m.Source == "") {
			t.Fatalf("%+v without an error", m)
		}
	})
}
