package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/tensor"
)

var (
	photos     = filepath.Join("..", "..", "testdata", "photos")
	videoClips = filepath.Join("..", "..", "media", "video", "testdata")
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

// goldenCaseFor reads the Python reference's expectation for one file,
// preset and override from testdata/photos/golden.json.
func goldenCaseFor(t *testing.T, file, preset, override string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(photos, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Files []struct {
			File  string           `json:"file"`
			Cases []map[string]any `json:"cases"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Files {
		if f.File != file {
			continue
		}
		for _, c := range f.Cases {
			if c["preset"] == preset && c["override"] == override {
				return c
			}
		}
	}
	t.Fatalf("no golden case %s %s %s", file, preset, override)
	return nil
}

func TestPreprocessUsageErrors(t *testing.T) {
	img := filepath.Join(photos, "synth", "size_28x28.png")
	for _, args := range [][]string{
		{"preprocess", img},                                                             // no --model
		{"preprocess", "--model", "qwen2.5-vl"},                                         // no files
		{"preprocess", "--model", "qwen2.5-vl", "--dtype", "int64", img},                // bad dtype
		{"preprocess", "--model", "qwen2.5-vl", "--min-pixels", "-1", img},              // negative
		{"preprocess", "--model", "qwen2.5-vl", "--frobnicate", img},                    // unknown flag
		{"preprocess", "--model", "no-such-model-or-dir", img},                          // bad model
		{"preprocess", "--model", "qwen2.5-vl", "--background", "1,2", img},             // bad colour
		{"preprocess", "--model", "qwen2.5-vl", "--out", t.TempDir(), img, img},         // same .npy twice
		{"preprocess", "--model", "qwen2.5-vl", "--fps", "2", "--num-frames", "8", img}, // exclusive video flags
	} {
		code, out, errs := runCmd(t, args...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, a reason", args, code, out, errs)
		}
	}
	if code, _, _ := runCmd(t, "help", "preprocess"); code != 0 {
		t.Errorf("help preprocess: exit %d", code)
	}
}

type lineJSON struct {
	File      string             `json:"file"`
	GridTHW   []int64            `json:"grid_thw"`
	Tokens    int                `json:"tokens"`
	Shape     []int              `json:"shape"`
	DType     string             `json:"dtype"`
	Exact     *bool              `json:"exact"`
	TimingsMS map[string]float64 `json:"timings_ms"`
	SHA256    string             `json:"sha256"`
	Error     string             `json:"error"`
}

func parseLines(t *testing.T, out string) []lineJSON {
	t.Helper()
	var lines []lineJSON
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var v lineJSON
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("bad JSON line %q: %v", l, err)
		}
		lines = append(lines, v)
	}
	return lines
}

// The hashes printed must equal the Python reference's, inputs are printed in
// input order with "file" echoed as given, and a refused input gets an error
// line and exit status 1.
func TestPreprocessGoldenHashes(t *testing.T) {
	files := []string{
		filepath.Join(photos, "Garden.jpg"),
		filepath.Join(photos, "synth", "ratio_201x1.png"),
		filepath.Join(photos, "synth", "exif_6.jpg"),
		filepath.Join(photos, "synth", "not_an_image.jpg"),
		filepath.Join(photos, "synth", "png_rgba.png"),
		"./" + filepath.Join(photos, "synth", "size_1x1.png"),
	}
	rel := []string{"Garden.jpg", "", "synth/exif_6.jpg", "", "synth/png_rgba.png", "synth/size_1x1.png"}
	for _, tc := range []struct {
		preset, override string
		flags            []string
	}{
		{"qwen2.5-vl", "default", nil},
		{"qwen3-vl", "max_pixels_1003520", []string{"--max-pixels", "1003520"}},
		{"qwen2.5-vl", "min_pixels_200704", []string{"--min-pixels", "200704", "--workers", "3"}},
	} {
		t.Run(tc.preset+"/"+tc.override, func(t *testing.T) {
			args := append([]string{"preprocess", "--model", tc.preset, "--hash"}, tc.flags...)
			code, out, errs := runCmd(t, append(args, files...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (two refused inputs); stderr %s", code, errs)
			}
			lines := parseLines(t, out)
			if len(lines) != len(files) {
				t.Fatalf("%d lines for %d inputs:\n%s", len(lines), len(files), out)
			}
			for i, l := range lines {
				if l.File != files[i] {
					t.Errorf("line %d file %q, want %q", i, l.File, files[i])
				}
				if rel[i] == "" {
					if l.Error == "" || l.GridTHW != nil {
						t.Errorf("line %d: want an error line, got %+v", i, l)
					}
					continue
				}
				want := goldenCaseFor(t, rel[i], tc.preset, tc.override)
				if l.Error != "" {
					t.Errorf("%s: %s", files[i], l.Error)
					continue
				}
				if l.SHA256 != want["sha256"] || float64(l.Tokens) != want["tokens"].(float64) || l.DType != "float32" {
					t.Errorf("%s: sha256 %s tokens %d, want the reference's %s %v", files[i], l.SHA256, l.Tokens, want["sha256"], want["tokens"])
				}
				wg := want["grid_thw"].([]any)
				ws := want["shape"].([]any)
				if len(l.GridTHW) != 3 || float64(l.GridTHW[1]) != wg[1].(float64) || float64(l.GridTHW[2]) != wg[2].(float64) ||
					len(l.Shape) != 2 || float64(l.Shape[0]) != ws[0].(float64) || float64(l.Shape[1]) != ws[1].(float64) {
					t.Errorf("%s: grid %v shape %v, want %v %v", files[i], l.GridTHW, l.Shape, wg, ws)
				}
				if l.Exact == nil || (cgoEnabled && !*l.Exact) {
					t.Errorf("%s: exact = %v", files[i], l.Exact)
				}
				for _, k := range []string{"decode", "resize", "normalize_patchify"} {
					if v, ok := l.TimingsMS[k]; !ok || v < 0 {
						t.Errorf("%s: timings_ms %v", files[i], l.TimingsMS)
					}
				}
			}
		})
	}
}

func readNPY(t *testing.T, path string) (string, []int, []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:6]) != "\x93NUMPY" || b[6] != 1 {
		t.Fatalf("%s: not an .npy v1 file", path)
	}
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	if (10+hl)%64 != 0 {
		t.Errorf("%s: data offset %d not 64-aligned", path, 10+hl)
	}
	h := string(b[10 : 10+hl])
	var descr string
	switch {
	case strings.Contains(h, "'descr': '<f4'"):
		descr = "<f4"
	case strings.Contains(h, "'descr': '<u2'"):
		descr = "<u2"
	case strings.Contains(h, "'descr': '<f2'"):
		descr = "<f2"
	}
	i := strings.Index(h, "'shape': (")
	var r, c int
	if _, err := fmtSscanf(h[i+len("'shape': ("):], &r, &c); err != nil {
		t.Fatalf("%s: header %q", path, h)
	}
	return descr, []int{r, c}, b[10+hl:]
}

// --out writes .npy files; bfloat16 and float16 tensors are the float32
// tensor rounded to nearest even.
func TestPreprocessOutDTypes(t *testing.T) {
	img := filepath.Join(photos, "synth", "jpeg_422_157x123.jpg")
	want := goldenCaseFor(t, "synth/jpeg_422_157x123.jpg", "qwen3-vl", "default")
	var f32 []float32
	for _, dt := range []string{"float32", "bfloat16", "float16"} {
		dir := t.TempDir()
		code, out, errs := runCmd(t, "preprocess", "--model", "qwen3-vl", "--dtype", dt, "--hash", "--out", dir, img)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", dt, code, errs)
		}
		l := parseLines(t, out)[0]
		descr, shape, data := readNPY(t, filepath.Join(dir, "jpeg_422_157x123.npy"))
		if l.DType != dt || shape[0] != l.Shape[0] || shape[1] != l.Shape[1] || hexSHA(data) != l.SHA256 {
			t.Fatalf("%s: line %+v, npy %s %v sha %s", dt, l, descr, shape, hexSHA(data))
		}
		n := shape[0] * shape[1]
		switch dt {
		case "float32":
			if descr != "<f4" || l.SHA256 != want["sha256"] {
				t.Fatalf("float32: descr %s sha %s, want the reference's %s", descr, l.SHA256, want["sha256"])
			}
			f32 = make([]float32, n)
			for i := range f32 {
				f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			}
		case "bfloat16", "float16":
			wantDescr, conv := "<u2", tensor.BFloat16FromFloat32
			if dt == "float16" {
				wantDescr, conv = "<f2", tensor.Float16FromFloat32
			}
			if descr != wantDescr || len(data) != 2*n {
				t.Fatalf("%s: descr %s, %d bytes", dt, descr, len(data))
			}
			for i, v := range f32 {
				if got := binary.LittleEndian.Uint16(data[2*i:]); got != conv(v) {
					t.Fatalf("%s: element %d = %#04x, want %#04x (from %v)", dt, i, got, conv(v), v)
				}
			}
		}
	}
}

// JSON lists are [] and numbers are numbers, per the conventions.
func TestPreprocessLineShape(t *testing.T) {
	code, out, _ := runCmd(t, "preprocess", "--model", "qwen2.5-vl", filepath.Join(photos, "synth", "size_28x28.png"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	exact := "true"
	if !cgoEnabled {
		exact = "false"
	}
	want := `{"file":"` + filepath.Join(photos, "synth", "size_28x28.png") + `","grid_thw":[1,4,4],"tokens":4,"shape":[16,1176],"dtype":"float32","exact":` + exact + `,"timings_ms":{"decode":`
	if !strings.HasPrefix(out, want) || strings.Contains(out, "sha256") || strings.Count(out, "\n") != 1 {
		t.Fatalf("line %q, want prefix %q and no sha256", out, want)
	}
}

// --background composites transparent inputs on that colour, as the
// reference does (golden background_cases).
func TestPreprocessBackground(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(photos, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Background []struct {
			File       string `json:"file"`
			Preset     string `json:"preset"`
			Background []int  `json:"background"`
			SHA256     string `json:"sha256"`
		} `json:"background_cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Background) == 0 {
		t.Fatalf("golden.json background cases: %v", err)
	}
	bc := doc.Background[0]
	bg := fmt.Sprintf("%d,%d,%d", bc.Background[0], bc.Background[1], bc.Background[2])
	code, out, errs := runCmd(t, "preprocess", "--model", bc.Preset, "--background", bg, "--hash", filepath.Join(photos, filepath.FromSlash(bc.File)))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if l := parseLines(t, out)[0]; l.SHA256 != bc.SHA256 {
		t.Fatalf("%s on %s: sha256 %s, want the reference's %s", bc.File, bg, l.SHA256, bc.SHA256)
	}
}

// A video and an image in one call: the video goes through the video
// pipeline (its hash equals the video reference's), the image through the
// image pipeline, in input order.
func TestPreprocessVideoAndImage(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed (Debian package ffmpeg)")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "videoprep", "testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Files []struct {
			File  string `json:"file"`
			Cases []struct {
				Model    string `json:"model"`
				Override string `json:"override"`
				SHA256   string `json:"sha256"`
			} `json:"cases"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, f := range doc.Files {
		for _, c := range f.Cases {
			if f.File == "vfr.mp4" && c.Model == "qwen3-vl" && c.Override == "default" {
				want = c.SHA256
			}
		}
	}
	if want == "" {
		t.Fatal("no vfr.mp4 qwen3-vl default case in the video goldens")
	}
	video := filepath.Join(videoClips, "vfr.mp4")
	img := filepath.Join(photos, "synth", "exif_6.jpg")
	code, out, errs := runCmd(t, "preprocess", "--model", "qwen3-vl", "--hash", video, img)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 || lines[0]["file"] != video || lines[0]["sha256"] != want || lines[0]["frames"] == nil {
		t.Fatalf("video line %v, want sha256 %s and frames", lines[0], want)
	}
	gi := goldenCaseFor(t, "synth/exif_6.jpg", "qwen3-vl", "default")
	if lines[1]["file"] != img || lines[1]["sha256"] != gi["sha256"] || lines[1]["frames"] != nil {
		t.Fatalf("image line %v, want sha256 %v", lines[1], gi["sha256"])
	}
}
