package access

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestAPIKeys(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "keys")
	os.WriteFile(good, []byte("# team a\nkey-one\n\n  key-two  \r\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("# nothing\n\n"), 0o600)
	cases := []struct {
		flags []string
		file  string
		want  []string
		err   string
	}{
		{nil, "", nil, ""},
		{[]string{"a", " ", "b"}, "", []string{"a", "b"}, ""},
		{[]string{"a"}, good, []string{"a", "key-one", "key-two"}, ""},
		{nil, empty, nil, "no key"},
		{nil, filepath.Join(dir, "missing"), nil, "no such file"},
	}
	for _, c := range cases {
		got, err := APIKeys(c.flags, c.file)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %s: err %v, want %q", c.flags, c.file, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v %s: %q %v, want %q", c.flags, c.file, got, err, c.want)
		}
	}
}

func TestGRPCServerTLS(t *testing.T) {
	if _, err := GRPCServerTLS("", "", "ca.pem"); err == nil {
		t.Error("--tls-client-ca without a certificate was accepted")
	}
	if cfg, err := GRPCServerTLS("", "", ""); cfg != nil || err != nil {
		t.Errorf("no TLS flags: %v %v", cfg, err)
	}
	if _, err := GRPCServerTLS("/nonexistent.pem", "/nonexistent-key.pem", ""); err == nil {
		t.Error("missing certificate files were accepted")
	}
}

func TestListenerAndWorkerTLSErrors(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"cert alone", second(ListenerTLS("c.pem", "")), "--tls-cert and --tls-key go together"},
		{"key alone", second(ListenerTLS("", "k.pem")), "--tls-cert and --tls-key go together"},
		{"missing pair", second(ListenerTLS("/nonexistent.pem", "/nonexistent-key.pem")), "--tls-cert/--tls-key: "},
		{"worker key alone", second(WorkerTLS("", "", "k.pem", "")), "--worker-tls-cert and --worker-tls-key go together"},
		{"missing ca", second(WorkerTLS("/nonexistent/ca.pem", "", "", "")), "--worker-tls-ca: "},
		{"ca without certificates", second(WorkerTLS(notPEM, "", "", "")), "no PEM certificate"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, c.err, c.want)
		}
	}
	if cfg, err := ListenerTLS("", ""); cfg != nil || err != nil {
		t.Errorf("no listener TLS flags: %v %v", cfg, err)
	}
	cfg, err := WorkerTLS("", "", "", "w.internal")
	if err != nil || cfg.ServerName != "w.internal" || cfg.RootCAs != nil || len(cfg.Certificates) != 0 {
		t.Errorf("server name only: %+v %v", cfg, err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestShmGroup(t *testing.T) {
	if g, err := ShmGroup(""); g != -1 || err != nil {
		t.Errorf(`"": %d %v`, g, err)
	}
	if g, err := ShmGroup("0"); g != 0 || err != nil {
		t.Errorf(`"0": %d %v`, g, err)
	}
	if _, err := ShmGroup("-3"); err == nil || !strings.Contains(err.Error(), "--shm-group") {
		t.Errorf(`"-3": %v`, err)
	}
	if _, err := ShmGroup("no-such-group-mmgate"); err == nil || !strings.Contains(err.Error(), "--shm-group") {
		t.Errorf("unknown group: %v", err)
	}
	// The group of this process's own GID, by name, resolves to that GID.
	if name := groupName(t, os.Getgid()); name != "" {
		if g, err := ShmGroup(name); g != os.Getgid() || err != nil {
			t.Errorf("%q: %d %v, want %d", name, g, err, os.Getgid())
		}
	}
}

// groupName is the name of group gid from /etc/group, or "".
func groupName(t *testing.T, gid int) string {
	b, err := os.ReadFile("/etc/group")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 3 && f[2] == strconv.Itoa(gid) {
			return f[0]
		}
	}
	return ""
}
