package preprocess

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family/builtin"
)

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// The errors of New and Run say who must act: the caller (*OptionsError),
// or nobody, the lines saying why an input was refused (ErrRefused) or
// could not be written (ErrOutput).
func TestRunErrors(t *testing.T) {
	model, err := builtin.New().Open("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	var oe *OptionsError
	for _, o := range []Options{{}, {Model: model, Workers: -1}, {Model: model, MaxPixels: -1}, {Model: model, Video: VideoOptions{FPS: 1, NumFrames: 2}}} {
		if _, err := New(o); !errors.As(err, &oe) {
			t.Errorf("New(%+v): %v, want an *OptionsError", o, err)
		}
	}
	img := filepath.Join(photos, "synth", "size_28x28.png")
	run := func(o Options, files ...string) (string, error) {
		t.Helper()
		r, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out bytes.Buffer
		err = r.Run(context.Background(), files, &out)
		return out.String(), err
	}
	if out, err := run(Options{Model: model}, img, img); err != nil || strings.Count(out, "\n") != 2 {
		t.Errorf("two good inputs: %v, %q", err, out)
	}
	if out, err := run(Options{Model: model}, "missing.png", img); !errors.Is(err, ErrRefused) || !strings.HasPrefix(out, `{"file":"missing.png","error":`) {
		t.Errorf("a missing input: %v, %q", err, out)
	}
	if out, err := run(Options{Model: model, OutDir: t.TempDir()}, img, img); !errors.As(err, &oe) || oe.Flag != "--out" || out != "" {
		t.Errorf("two inputs writing one .npy file: %v, %q", err, out)
	}
	r, err := New(Options{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Run(context.Background(), []string{img, "missing.png"}, failWriter{}); !errors.Is(err, ErrOutput) || !errors.Is(err, ErrRefused) {
		t.Errorf("a failing writer: %v, want ErrOutput and ErrRefused", err)
	}
}

// Inputs start longest first — videos, then images by their planned cost,
// unreadable ones last — while their lines keep the input order; with no
// more inputs than workers they start as given.
func TestDispatchOrder(t *testing.T) {
	model, err := builtin.New().Open("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Model: model, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	small := filepath.Join(photos, "synth", "jpeg_420_157x123.jpg")
	prog := filepath.Join(photos, "synth", "jpeg_420_prog_157x123.jpg")
	big := filepath.Join(photos, "synth", "big_4000x3000.jpg")
	clip := filepath.Join("..", "..", "media", "video", "testdata", "one_frame.mp4")
	files := []string{"missing.png", small, prog, big, clip}
	got := r.dispatchOrder(files)
	want := []int{4, 3, 2, 1, 0}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if got := r.dispatchOrder(files[:2]); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("two inputs, two workers: order %v", got)
	}
	var out bytes.Buffer
	_ = r.Run(context.Background(), files[:4], &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i, name := range files[:4] {
		if !strings.HasPrefix(lines[i], `{"file":"`+name+`"`) {
			t.Errorf("line %d is %.60s, want %s's", i, lines[i], name)
		}
	}
}

// A tensor whose .npy file cannot be written whole — a streamed JPEG's,
// failing part way, or a PNG's, held whole — gets an error line saying
// why, and no file is left; the other inputs still get theirs, with the
// hashes they have without a file.
func TestNPYWriteFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	model, err := builtin.New().Open("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	jpg := filepath.Join(photos, "Garden.jpg")
	png := filepath.Join(photos, "synth", "png_rgba.png")
	good := filepath.Join(photos, "synth", "exif_6.jpg")
	run := func(dir string) []map[string]any {
		t.Helper()
		r, err := New(Options{Model: model, Hash: true, OutDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out bytes.Buffer
		err = r.Run(context.Background(), []string{jpg, png, good}, &out)
		if dir != "" && !errors.Is(err, ErrRefused) {
			t.Errorf("Run: %v, want ErrRefused", err)
		}
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			lines = append(lines, m)
		}
		return lines
	}
	want := run("")
	dir := t.TempDir()
	for _, name := range []string{"Garden.npy", "png_rgba.npy"} {
		if err := os.Symlink("/dev/full", filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	got := run(dir)
	for i := range 2 {
		if e, _ := got[i]["error"].(string); !strings.Contains(e, "no space left") {
			t.Errorf("line %d: %v, want an error line saying the disk is full", i, got[i])
		}
	}
	if got[2]["sha256"] == nil || got[2]["sha256"] != want[2]["sha256"] {
		t.Errorf("the good input's line %v, want the hash %v", got[2], want[2]["sha256"])
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "exif_6.npy" {
		t.Errorf("files left: %v, want exif_6.npy alone", ents)
	}
}
