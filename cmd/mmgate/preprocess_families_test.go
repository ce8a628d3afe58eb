package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

// familyFiles are the real photos and edge cases (sizes around every
// factor, extreme ratios, EXIF orientation, every alpha and palette mode,
// CMYK, undecodable files) the family goldens cover.
var familyFiles = []string{
	"testdata/photos/Aqua.jpg", "testdata/photos/Spring.png", "testdata/photos/Sway_Wallpaper_Blue_1136x640_Portrait.png",
	"testdata/photos/wood-d.webp", "testdata/photos/synth/size_1x1.png", "testdata/photos/synth/size_27x29.png",
	"testdata/photos/synth/tall_30x6000.png", "testdata/photos/synth/ratio_200x1.png", "testdata/photos/synth/ratio_201x1.png",
	"testdata/photos/synth/ratio_2x402.png", "testdata/photos/synth/exif_6.jpg", "testdata/photos/synth/exif_corrupt.jpg",
	"testdata/photos/synth/png_rgba.png", "testdata/photos/synth/png_la.png", "testdata/photos/synth/png_p_trns.png",
	"testdata/photos/synth/jpeg_cmyk.jpg", "testdata/photos/synth/gif_trns.gif", "testdata/photos/synth/webp_lossy_alpha.webp",
	"testdata/photos/synth/aligned_448x448.png", "testdata/photos/synth/not_an_image.jpg", "testdata/photos/synth/jpeg_truncated.jpg",
	"media/testdata/corpus/png_exif_o6.png", "media/testdata/corpus/exif_jpeg_o5.jpg", "media/testdata/corpus/jpeg_61x37_420.jpg",
}

// familyWant is what a family's reference golden says of one file: the
// line `mmgate preprocess --hash` must print, or that the file is refused.
type familyWant struct {
	refused bool
	shape   []any
	tokens  float64
	sha256  string
	extras  map[string]any
}

// goldenEntries reads the files of a processor package's golden.json.
func goldenEntries(t *testing.T, pkg string) map[string]map[string]any {
	t.Helper()
	var doc struct {
		Files []map[string]any `json:"files"`
	}
	readGolden(t, pkg, &doc)
	out := map[string]map[string]any{}
	for _, f := range doc.Files {
		out[f["file"].(string)] = f
	}
	return out
}

// readGolden decodes the golden.json of processor package pkg into v.
func readGolden(t *testing.T, pkg string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "vision", pkg, "testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// caseWant turns one golden case (or file entry) into a familyWant with
// the extras named.
func caseWant(c map[string]any, extras ...string) familyWant {
	if _, refused := c["error"]; refused {
		return familyWant{refused: true}
	}
	w := familyWant{shape: c["shape"].([]any), tokens: c["tokens"].(float64), sha256: c["sha256"].(string), extras: map[string]any{}}
	for _, k := range extras {
		w.extras[k] = c[k]
	}
	return w
}

// pickCase selects the case whose key names value among a golden file's
// cases; a file the reference could not decode is refused.
func pickCase(f map[string]any, key, value string, extras ...string) familyWant {
	if _, refused := f["error"]; refused {
		return familyWant{refused: true}
	}
	for _, c := range f["cases"].([]any) {
		if m := c.(map[string]any); m[key] == value {
			return caseWant(m, extras...)
		}
	}
	return familyWant{}
}

// TestPreprocessFamilies runs `mmgate preprocess --hash` on each family's
// fixture folder (and on a copy of Gemma 3's with pan-and-scan on) and
// compares every line with the processor package's reference golden:
// shape, sha256 of the float32 bytes, tokens and the family's extras, in
// input order, refused files included.
func TestPreprocessFamilies(t *testing.T) {
	if !cgoEnabled {
		t.Skip("the goldens are Pillow's decoders' pixels")
	}
	for _, tc := range []struct {
		name, folder, pkg string
		patch             map[string]any
		want              func(f map[string]any) familyWant
	}{
		{"gemma3", "gemma3", "gemma3", nil, func(f map[string]any) familyWant { return pickCase(f, "variant", "default", "num_crops") }},
		{"gemma3-pan-and-scan", "gemma3", "gemma3", map[string]any{"do_pan_and_scan": true},
			func(f map[string]any) familyWant { return pickCase(f, "variant", "pan_and_scan", "num_crops") }},
		{"llava", "llava-1.5", "clip", nil, func(f map[string]any) familyWant { return pickCase(f, "variant", "default") }},
		{"llava-next", "llava-next", "llavanext", nil, func(f map[string]any) familyWant { return pickCase(f, "variant", "default", "image_sizes") }},
		{"internvl", "internvl3", "internvl", nil, func(f map[string]any) familyWant { return caseWant(f, "num_patches") }},
		{"glm4v", "glm-4.1v", "glm4v", nil, func(f map[string]any) familyWant { return pickCase(f, "override", "default", "grid_thw") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tokenizertest.ModelDir(t, tc.folder)
			if tc.patch != nil {
				familytest.Patch(t, dir, "preprocessor_config.json", tc.patch)
			}
			golden := goldenEntries(t, tc.pkg)
			args := []string{"preprocess", "--model", dir, "--hash"}
			for _, f := range familyFiles {
				args = append(args, filepath.Join("..", "..", filepath.FromSlash(f)))
			}
			_, out, errs := runCmd(t, args...)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != len(familyFiles) {
				t.Fatalf("%d lines for %d files; stderr %s", len(lines), len(familyFiles), errs)
			}
			for i, f := range familyFiles {
				entry, ok := golden[f]
				if !ok {
					t.Fatalf("%s is not in vision/%s's golden", f, tc.pkg)
				}
				checkFamilyLine(t, f, lines[i], tc.want(entry))
			}
		})
	}
}

// checkFamilyLine compares one JSON line with the reference.
func checkFamilyLine(t *testing.T, file, line string, want familyWant) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("%s: %v: %s", file, err, line)
	}
	if want.refused {
		if _, ok := got["error"]; !ok {
			t.Errorf("%s: the reference refuses it, mmgate printed %s", file, line)
		}
		return
	}
	if want.shape == nil {
		t.Fatalf("%s: no reference case", file)
	}
	if !reflect.DeepEqual(got["shape"], want.shape) || got["tokens"] != want.tokens || got["sha256"] != want.sha256 {
		t.Errorf("%s: %s\nwant shape %v tokens %v sha256 %s", file, line, want.shape, want.tokens, want.sha256)
	}
	common := map[string]bool{"file": true, "tokens": true, "shape": true, "dtype": true, "exact": true, "timings_ms": true, "sha256": true}
	for k, v := range got {
		wv, extra := want.extras[k]
		switch {
		case extra && !reflect.DeepEqual(v, wv):
			t.Errorf("%s: %s = %v, want %v", file, k, v, wv)
		case !extra && !common[k]:
			t.Errorf("%s: unexpected field %s", file, k)
		}
	}
	for k := range want.extras {
		if _, ok := got[k]; !ok {
			t.Errorf("%s: no %s", file, k)
		}
	}
}

// --dtype bfloat16 and float16 work for every family as for Qwen: the
// float32 tensor rounded to nearest even, its hash printed, its .npy
// written.
func TestPreprocessFamilyDTypes(t *testing.T) {
	img := filepath.Join(photos, "synth", "exif_6.jpg")
	for _, folder := range []string{"gemma3", "llava-next", "internvl3", "glm-4.1v"} {
		dir := tokenizertest.ModelDir(t, folder)
		var f32 []byte
		for _, dt := range []string{"float32", "bfloat16", "float16"} {
			out := t.TempDir()
			code, line, errs := runCmd(t, "preprocess", "--model", dir, "--dtype", dt, "--hash", "--out", out, img)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", folder, dt, code, errs)
			}
			l := parseLines(t, line)[0]
			data := npyData(t, filepath.Join(out, "exif_6.npy"))
			if l.DType != dt || hexSHA(data) != l.SHA256 {
				t.Fatalf("%s %s: line %+v, .npy sha256 %s", folder, dt, l, hexSHA(data))
			}
			if dt == "float32" {
				f32 = data
				continue
			}
			want := make([]byte, len(f32)/2)
			tensorRound(f32, want, dt)
			if hexSHA(want) != l.SHA256 {
				t.Errorf("%s %s: sha256 %s, want the float32 tensor rounded (%s)", folder, dt, l.SHA256, hexSHA(want))
			}
		}
	}
}

// npyData returns the data of an .npy v1 file.
func npyData(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		t.Fatalf("%s: not an .npy file", path)
	}
	return b[10+int(binary.LittleEndian.Uint16(b[8:10])):]
}

// tensorRound writes the float32 little-endian values of f32 into dst as
// bfloat16 or float16 (package tensor's rounding).
func tensorRound(f32, dst []byte, dt string) {
	conv := tensor.BFloat16FromFloat32
	if dt == "float16" {
		conv = tensor.Float16FromFloat32
	}
	for i := range len(dst) / 2 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(f32[4*i:]))
		binary.LittleEndian.PutUint16(dst[2*i:], conv(v))
	}
}

// GLM-4V videos: sampled frames, grid, tokens and sha256 as the reference
// (vision/glm4v's golden clips).
func TestPreprocessGLMVideo(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed (Debian package ffmpeg)")
	}
	var doc struct {
		Clips []map[string]any `json:"clips"`
	}
	readGolden(t, "glm4v", &doc)
	dir := tokenizertest.ModelDir(t, "glm-4.1v")
	checked := 0
	for _, c := range doc.Clips {
		name := c["file"].(string)
		if name != "h264_moov_end.mp4" && name != "vp9.webm" && name != "h264_portrait_faststart.mp4" {
			continue
		}
		_, out, errs := runCmd(t, "preprocess", "--model", dir, "--hash", filepath.Join("..", "..", "media", "video", "testdata", name))
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v: %s %s", name, err, out, errs)
		}
		if got["sha256"] != c["sha256"] || !reflect.DeepEqual(got["grid_thw"], c["grid_thw"]) || got["tokens"] != c["tokens"] ||
			!reflect.DeepEqual(got["shape"], c["shape"]) {
			t.Errorf("%s: %s\nwant %v", name, out, c)
		}
		checked++
	}
	if checked != 3 {
		t.Fatalf("%d clips checked", checked)
	}
}
