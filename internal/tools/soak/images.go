package soak

import (
	"bytes"
	"fmt"
	goimage "image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mmgate/mmgate/internal/testutil/procs"
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
		m := synthImage(w, h, i)
		var b bytes.Buffer
		if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 85}); err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "img"+strconv.Itoa(i)+".jpg")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return nil, err
		}
		sha, err := procs.PreprocessHash(cfg.Binary, cfg.ModelDir, cfg.encoderDType(), path)
		if err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
		out = append(out, image{dataURL: dataURL(b.Bytes()), sha: sha})
	}
	return out, nil
}

// synthImage is a w×h gradient-and-bars picture that seed varies.
func synthImage(w, h, seed int) *goimage.NRGBA {
	m := goimage.NewNRGBA(goimage.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.Set(x, y, color.NRGBA{uint8(x*7 + seed*31), uint8(y*5 + seed*11), uint8((x ^ y) + seed*3), 255})
		}
	}
	return m
}
