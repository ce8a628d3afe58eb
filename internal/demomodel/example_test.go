package demomodel

import (
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example sends a real 320×240 JPEG to the address the gateway listens
// on (loopback for a wildcard host), over the scheme it serves.
func TestPrintExample(t *testing.T) {
	for _, c := range []struct {
		listen string
		https  bool
		want   string
	}{
		{"127.0.0.1:8080", false, "curl -s http://127.0.0.1:8080/v1/chat/completions"},
		{"0.0.0.0:9000", true, "curl -s https://127.0.0.1:9000/v1/chat/completions"},
		{":7000", false, "curl -s http://127.0.0.1:7000/v1/chat/completions"},
	} {
		dir := t.TempDir()
		var out strings.Builder
		PrintExample(&out, c.listen, c.https, dir)
		sample := filepath.Join(dir, "sample.jpg")
		if !strings.Contains(out.String(), c.want) || !strings.Contains(out.String(), "base64 -w0 "+sample) ||
			!strings.Contains(out.String(), "--hash "+sample) {
			t.Errorf("%s: printed\n%s", c.listen, out.String())
		}
		f, err := os.Open(sample)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := jpeg.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != 320 || cfg.Height != 240 {
			t.Errorf("sample: %+v %v", cfg, err)
		}
	}
	var out strings.Builder
	PrintExample(&out, "127.0.0.1:8080", false, filepath.Join(t.TempDir(), "missing"))
	if out.Len() != 0 {
		t.Errorf("printed without a sample: %q", out.String())
	}
}
