package glm4v

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/media/video"
)

// TestGoldenClips decodes the project's test clips with FFmpeg (package
// media/video, the frames of `ffmpeg -pix_fmt rgb24`), plans them from the
// counted frames and average fps, and compares sampling, sizes, prompt and
// pixel_values_videos with the reference, including a 400 s clip that takes
// the linspace branch and clips too short to sample.
func TestGoldenClips(t *testing.T) {
	for _, b := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed (Debian package ffmpeg)", b)
		}
	}
	doc := loadGolden(t)
	dec, err := video.New(video.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := loadFixture(t, Options{})
	for _, c := range doc.Clips {
		t.Run(c.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "media", "video", "testdata", c.File))
			if err != nil {
				t.Fatal(err)
			}
			v, err := dec.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			info, err := v.Probe(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Frames != c.Frames || info.FPS != c.FPS || info.Width != c.Width || info.Height != c.Height {
				t.Fatalf("probe %+v, want %d frames at %v fps, %dx%d", info, c.Frames, c.FPS, c.Width, c.Height)
			}
			checkVideo(t, p, c, func(idx []int) []*imaging.RGB {
				out := make([]*imaging.RGB, len(idx))
				_, err := v.Decode(context.Background(), info, idx, func(k int, f *imaging.RGB) error {
					out[k] = f
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return out
			})
		})
	}
}
