package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// goldenCase is one entry of testdata/golden.json, written by
// scripts/golden/media_pillow.py from Pillow 9.4.
type goldenCase struct {
	File            string `json:"file"`
	Format          string `json:"format"`
	Mode            string `json:"mode"`
	Width           int    `json:"width"`
	Height          int    `json:"height"`
	Orientation     int    `json:"orientation"`
	SHA256          string `json:"sha256"`
	SHA256BG        string `json:"sha256_background"`
	Error           string `json:"error"`
	HalfTruncatedOK bool   `json:"half_truncated_ok"`
	// TruncatedOK says, per prefix length, whether Pillow accepts the file
	// cut to that length.
	TruncatedOK map[string]bool `json:"truncated_ok"`
	// KnownUnsupported marks files Pillow opens that Decode refuses with
	// ErrUnsupported on purpose (documented limits).
	KnownUnsupported bool `json:"known_unsupported"`
}

type goldenManifest struct {
	Pillow     string       `json:"pillow"`
	Background [3]uint8     `json:"background"`
	Cases      []goldenCase `json:"cases"`
}

func loadGolden(t testing.TB) *goldenManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m goldenManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Cases) == 0 {
		t.Fatal("no golden cases")
	}
	return &m
}

func readCorpus(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sum(p []byte) string {
	s := sha256.Sum256(p)
	return hex.EncodeToString(s[:])
}

// TestGolden decodes every corpus file and compares the RGB bytes with
// Pillow's, on white and on the manifest's background, plus the mode, size,
// format and orientation.
func TestGolden(t *testing.T) {
	m := loadGolden(t)
	white, _ := New(Options{})
	bgDec, _ := New(Options{Background: &m.Background})
	ctx := context.Background()
	for _, c := range m.Cases {
		t.Run(c.File, func(t *testing.T) {
			if testing.Short() && len(c.File) > 6 && c.File[:6] == "photo_" {
				t.Skip("large photo in -short mode")
			}
			data := readCorpus(t, c.File)
			img, err := white.Decode(ctx, data)
			if c.KnownUnsupported {
				if !errors.Is(err, ErrUnsupported) {
					t.Fatalf("err = %v, want ErrUnsupported (a documented limit)", err)
				}
				return
			}
			if c.Error != "" {
				if err == nil {
					t.Fatalf("decoded a file Pillow refuses (%s)", c.Error)
				}
				return
			}
			if err != nil && errors.Is(err, ErrUnsupported) && !formatExact(c.Format) {
				t.Skipf("not supported by this build's %s decoder: %v", c.Format, err)
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if img.Format != c.Format || img.SourceMode != c.Mode {
				t.Errorf("format/mode = %s/%s, want %s/%s", img.Format, img.SourceMode, c.Format, c.Mode)
			}
			if img.RGB.Width != c.Width || img.RGB.Height != c.Height {
				t.Fatalf("size = %dx%d, want %dx%d", img.RGB.Width, img.RGB.Height, c.Width, c.Height)
			}
			if err := img.RGB.Validate(); err != nil {
				t.Fatal(err)
			}
			wantO := c.Orientation
			if wantO == 0 {
				wantO = 1
			}
			if img.Orientation != wantO {
				t.Errorf("orientation = %d, want %d", img.Orientation, wantO)
			}
			h, err := white.Probe(data)
			if err != nil {
				t.Fatalf("Probe: %v", err)
			}
			if h != (Header{Format: c.Format, Width: c.Width, Height: c.Height, Orientation: wantO}) {
				t.Errorf("Probe = %+v, want %s %dx%d orientation %d", h, c.Format, c.Width, c.Height, wantO)
			}
			if !img.Exact {
				t.Logf("not exact in this build (%s); pixels not compared", c.Format)
				return
			}
			if got := sum(img.RGB.Pix); got != c.SHA256 {
				t.Errorf("sha256 = %s, want %s", got, c.SHA256)
			}
			img2, err := bgDec.Decode(ctx, data)
			if err != nil {
				t.Fatalf("Decode with background: %v", err)
			}
			if got := sum(img2.RGB.Pix); got != c.SHA256BG {
				t.Errorf("sha256 on background %v = %s, want %s", m.Background, got, c.SHA256BG)
			}
		})
	}
}

// TestTruncated cuts every corpus file at several lengths: decoding must
// fail with a typed error or succeed, never panic, and at half length must
// fail exactly when Pillow fails.
func TestTruncated(t *testing.T) {
	m := loadGolden(t)
	d, _ := New(Options{})
	ctx := context.Background()
	for _, c := range m.Cases {
		if c.Error != "" || (len(c.File) > 6 && c.File[:6] == "photo_") {
			continue
		}
		data := readCorpus(t, c.File)
		for _, n := range []int{0, 1, 2, 3, 8, 12, 16, 30, 64, len(data) / 4, len(data) / 2, len(data) * 3 / 4, len(data) - 2, len(data) - 1} {
			if n < 0 || n >= len(data) {
				continue
			}
			_, err := d.Decode(ctx, data[:n])
			if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s[:%d]: untyped error %v", c.File, n, err)
			}
			if _, perr := d.Probe(data[:n]); perr != nil && !errors.Is(perr, ErrCorrupt) && !errors.Is(perr, ErrUnsupported) {
				t.Errorf("%s[:%d]: Probe: untyped error %v", c.File, n, perr)
			}
			ok, recorded := c.TruncatedOK[strconv.Itoa(n)]
			if n == len(data)/2 {
				ok, recorded = c.HalfTruncatedOK, true
			}
			if recorded && (err == nil) != ok && formatExact(c.Format) && !c.KnownUnsupported {
				t.Errorf("%s[:%d]: err = %v, Pillow accepts: %v", c.File, n, err, ok)
			}
		}
	}
}

// formatExact reports whether this build's decoder for format is the
// Pillow-exact one.
func formatExact(format string) bool {
	for _, d := range Decoders() {
		if d.Format == format {
			return d.Exact
		}
	}
	return false
}

func loadJSON(t testing.TB, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
