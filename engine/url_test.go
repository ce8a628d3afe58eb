package engine

import (
	"errors"
	"testing"
)

func TestParseWorkerURL(t *testing.T) {
	cases := []struct {
		in, want string
		err      error
	}{
		{"grpc://127.0.0.1:50051", "dns:///127.0.0.1:50051", nil},
		{"grpc://worker-1.internal:8000", "dns:///worker-1.internal:8000", nil},
		{"GRPC://h:1", "dns:///h:1", nil},
		{"grpc://[::1]:9000", "dns:///[::1]:9000", nil},
		{"unix:///run/mmgate/worker.sock", "unix:///run/mmgate/worker.sock", nil},
		{"grpcs://h:443", "dns:///h:443", nil},
		{"grpcs://h:443/x", "", ErrBadURL},
		{"https://h:443", "", ErrUnsupported},
		{"http://h:80", "", ErrBadURL},
		{"h:80", "", ErrBadURL},
		{"", "", ErrBadURL},
		{"grpc://h", "", ErrBadURL},
		{"grpc://:80", "", ErrBadURL},
		{"grpc://h:0", "", ErrBadURL},
		{"grpc://h:65536", "", ErrBadURL},
		{"grpc://h:+80", "", ErrBadURL},
		{"grpc://h:080", "", ErrBadURL},
		{"grpc://h:80/", "", ErrBadURL},
		{"grpc://h:80/path", "", ErrBadURL},
		{"grpc://h:80?x=1", "", ErrBadURL},
		{"grpc://user@h:80", "", ErrBadURL},
		{"grpc://h h:80", "", ErrBadURL},
		{"grpc://[::1:80", "", ErrBadURL},
		{"grpc://[zz::1]:80", "", ErrBadURL},
		{"unix://relative.sock", "", ErrBadURL},
		{"unix://host/abs.sock", "", ErrBadURL},
		{"unix:///", "", ErrBadURL},
		{"unix:///a/../b.sock", "", ErrBadURL},
		{"unix:///a/", "", ErrBadURL},
		{"unix:///a.sock?x", "", ErrBadURL},
		{"unix:/a.sock", "", ErrBadURL},
	}
	for _, c := range cases {
		got, err := ParseWorkerURL(c.in)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ParseWorkerURL(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func FuzzParseWorkerURL(f *testing.F) {
	for _, s := range []string{"grpc://127.0.0.1:50051", "unix:///tmp/w.sock", "grpc://[::1]:1", "grpcs://h:1", "unix://x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		target, err := ParseWorkerURL(s)
		if err != nil {
			if target != "" || !(errors.Is(err, ErrBadURL) || errors.Is(err, ErrUnsupported)) {
				t.Fatalf("%q: %q, %v", s, target, err)
			}
			return
		}
		// An accepted URL parses to itself again through its target's form.
		var back string
		switch {
		case len(target) > 7 && target[:7] == "dns:///":
			back = "grpc://" + target[7:]
			if IsTLSURL(s) {
				back = "grpcs://" + target[7:]
			}
		case len(target) > 7 && target[:7] == "unix://":
			back = target
		default:
			t.Fatalf("%q: target %q", s, target)
		}
		if again, err := ParseWorkerURL(back); err != nil || again != target {
			t.Fatalf("%q → %q → %q, %v", s, target, again, err)
		}
	})
}

// TestParseWorkerURLEscapes: percent escapes in a socket path survive the
// round trip through the target (found by FuzzParseWorkerURL).
func TestParseWorkerURLEscapes(t *testing.T) {
	for raw, want := range map[string]string{
		"unix:///tmp/w.sock":       "unix:///tmp/w.sock",
		"uniX:///000000%100":       "unix:///000000%100",
		"unix:///tmp/a%20b.sock":   "unix:///tmp/a%20b.sock",
		"unix:///tmp/pct%25x.sock": "unix:///tmp/pct%25x.sock",
	} {
		got, err := ParseWorkerURL(raw)
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", raw, got, err, want)
			continue
		}
		if again, err := ParseWorkerURL(got); err != nil || again != got {
			t.Errorf("%q: target %q parses to %q, %v", raw, got, again, err)
		}
	}
}
