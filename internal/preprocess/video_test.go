package preprocess

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/tensor"
)

var videoClips = filepath.Join("..", "..", "media", "video", "testdata")

func TestIsVideo(t *testing.T) {
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00")
	webp := []byte("RIFF\x10\x00\x00\x00WEBPVP8X")
	mp4, err := os.ReadFile(filepath.Join(videoClips, "h264_moov_end.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	webm, err := os.ReadFile(filepath.Join(videoClips, "vp9.webm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		data    []byte
		asVideo bool
		want    bool
	}{
		{"mp4", mp4, false, true},
		{"webm", webm, false, true},
		{"gif", gif, false, false},
		{"gif as video", gif, true, true},
		{"webp", webp, false, false},
		{"webp as video", webp, true, true},
		{"jpeg", []byte{0xff, 0xd8, 0xff, 0xe0}, true, false},
		{"empty", nil, true, false},
	} {
		if got := isVideo(c.data, c.asVideo); got != c.want {
			t.Errorf("%s: isVideo = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestVideoFlagsValidate(t *testing.T) {
	for _, c := range []struct {
		vf VideoOptions
		ok bool
	}{
		{VideoOptions{}, true},
		{VideoOptions{FPS: 1}, true},
		{VideoOptions{NumFrames: 8}, true},
		{VideoOptions{FPS: 1, NumFrames: 8}, false},
		{VideoOptions{FPS: -1}, false},
		{VideoOptions{TotalPixels: -1}, false},
		{VideoOptions{NumFrames: 769}, false},
	} {
		if got := c.vf.validate() == nil; got != c.ok {
			t.Errorf("%+v: ok = %v, want %v", c.vf, got, c.ok)
		}
	}
}

// TestPreprocessVideoGolden checks the JSON line of a video against the
// Python reference's goldens (internal/videoprep/testdata/golden.json).
func TestPreprocessVideoGolden(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed (Debian package ffmpeg)")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "videoprep", "testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Files []struct {
			File  string  `json:"file"`
			FPS   float64 `json:"fps"`
			Cases []struct {
				Model, Override string
				Indices         []int     `json:"indices"`
				GridTHW         []int64   `json:"grid_thw"`
				Tokens          int       `json:"tokens"`
				Timestamps      []float64 `json:"timestamps"`
				SecondPerGridTS *float64  `json:"second_per_grid_ts"`
				SHA256          string    `json:"sha256"`
			} `json:"cases"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, fc := range doc.Files {
		if fc.File != "vfr.mp4" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(videoClips, fc.File))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range fc.Cases {
			if c.Override != "default" {
				continue
			}
			t.Run(c.Model, func(t *testing.T) {
				model, err := builtin.New().Open(c.Model)
				if err != nil {
					t.Fatal(err)
				}
				r, err := New(Options{Model: model, Workers: 2, DType: tensor.Float32, Hash: true})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				got := r.video(context.Background(), "in.mp4", data, "")
				line, ok := got.(VideoLine)
				if !ok {
					t.Fatalf("refused: %+v", got)
				}
				var gridTHW []int64
				if len(line.Extras) == 1 && line.Extras[0].Key == "grid_thw" {
					gridTHW, _ = line.Extras[0].Value.([]int64)
				}
				if line.SHA256 != c.SHA256 || !slices.Equal(line.Frames, c.Indices) || !slices.Equal(gridTHW, c.GridTHW) ||
					line.Tokens != c.Tokens || line.FPS != fc.FPS || !slices.Equal(line.Timestamps, c.Timestamps) {
					t.Errorf("line %+v\nwant %+v", line, c)
				}
				if (c.SecondPerGridTS == nil) != (line.SecondPerGridTS == nil) ||
					c.SecondPerGridTS != nil && *c.SecondPerGridTS != *line.SecondPerGridTS {
					t.Errorf("second_per_grid_ts %v, want %v", line.SecondPerGridTS, c.SecondPerGridTS)
				}
				js, _ := json.Marshal(line)
				var m map[string]any
				_ = json.Unmarshal(js, &m)
				for _, k := range []string{"file", "grid_thw", "tokens", "shape", "dtype", "frames", "fps", "timings_ms", "sha256"} {
					if _, ok := m[k]; !ok {
						t.Errorf("JSON line has no %q: %s", k, js)
					}
				}
			})
		}
	}
}
