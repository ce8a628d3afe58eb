package soak

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mmgate/mmgate/internal/testutil/procs"
	"github.com/mmgate/mmgate/internal/tools/synth"
)

// makeImages writes cfg.Images synthetic JPEGs of assorted sizes and asks
// the binary for the fingerprint of each one's pixel_values.
func makeImages(cfg *Config) ([]image, error) {
	dir := filepath.Join(cfg.WorkDir, "images")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sizes := [][2]int{{640, 480}, {300, 200}, {97, 301}, {512, 512}, {1024, 160}, {56, 56}, {800, 600}, {333, 222}}
	var out []image
	for i := 0; i < cfg.Images; i++ {
		w, h := sizes[i%len(sizes)][0], sizes[i%len(sizes)][1]
		b, err := synth.JPEG(w, h, i)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "img"+strconv.Itoa(i)+".jpg")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return nil, err
		}
		sha, err := procs.PreprocessHash(cfg.Binary, cfg.ModelDir, cfg.encoderDType(), path)
		if err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
		out = append(out, image{dataURL: dataURL(b), sha: sha})
	}
	return out, nil
}
