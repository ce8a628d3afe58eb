package llavanext

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/clip"
	"github.com/mmgate/mmgate/vision/hfconfig"
)

// ModelType is the config.json model_type this package serves.
const ModelType = "llava_next"

// Bounds on the configuration: a pinpoint side, the tiles of a pinpoint.
const (
	maxPinpoint = 1 << 13
	maxTiles    = 1024
)

// DefaultPinpoints returns LlavaNextImageProcessor's image_grid_pinpoints,
// as (height, width).
func DefaultPinpoints() [][2]int {
	return [][2]int{{336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}}
}

// Config is a resolved LLaVA-NeXT processor configuration.
type Config struct {
	clip.Config          // the CLIP image and LLaVA prompt settings
	Pinpoints   [][2]int // image_grid_pinpoints, (height, width)
}

type rawExtra struct {
	Pinpoints json.RawMessage `json:"image_grid_pinpoints"`
}

// LoadConfig reads a LLaVA-NeXT model folder (hfconfig.ReadFiles) and
// parses it.
func LoadConfig(dir string) (*Config, error) { return hfconfig.Load("llavanext", dir, ParseConfig) }

// ParseConfig resolves a configuration from a model folder's files
// (clip.ParseFolder) and its image_grid_pinpoints (the class default list
// when absent).
func ParseConfig(f hfconfig.Files) (*Config, error) {
	var extra rawExtra
	base, err := clip.ParseFolder(f, ModelType, "LlavaNextImageProcessor", &extra)
	if err != nil {
		return nil, fmt.Errorf("llavanext: %w", err)
	}
	cfg := &Config{Config: *base}
	if cfg.Pinpoints, err = parsePinpoints(extra.Pinpoints); err != nil {
		return nil, fmt.Errorf("llavanext: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// parsePinpoints reads a list of [height, width] integer pairs; absent or
// null means DefaultPinpoints().
func parsePinpoints(raw json.RawMessage) ([][2]int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return DefaultPinpoints(), nil
	}
	var pp [][]float64
	if err := json.Unmarshal(raw, &pp); err != nil {
		return nil, fmt.Errorf("image_grid_pinpoints: %v: %w", err, vision.ErrBadOptions)
	}
	out := make([][2]int, len(pp))
	for i, p := range pp {
		if len(p) != 2 || p[0] != math.Trunc(p[0]) || p[1] != math.Trunc(p[1]) || p[0] < 0 || p[1] < 0 || p[0] > maxPinpoint || p[1] > maxPinpoint {
			return nil, fmt.Errorf("image_grid_pinpoints[%d] = %v: %w", i, p, vision.ErrBadOptions)
		}
		out[i] = [2]int{int(p[0]), int(p[1])}
	}
	return out, nil
}

// TileSize is the side of the square tiles (get_image_patches' patch_size):
// crop_size.height, else size.height, else size.shortest_edge.
func (c *Config) TileSize() int {
	switch {
	case c.Image.CropHeight > 0:
		return c.Image.CropHeight
	case c.Image.Size.Height > 0:
		return c.Image.Size.Height
	}
	return c.Image.Size.ShortestEdge
}

// BaseSize is the size (height, width) the whole image is resized to first:
// size.height × size.width, else shortest_edge × shortest_edge.
func (c *Config) BaseSize() (int, int) {
	if c.Image.Size.Height > 0 && c.Image.Size.Width > 0 {
		return c.Image.Size.Height, c.Image.Size.Width
	}
	return c.Image.Size.ShortestEdge, c.Image.Size.ShortestEdge
}

// Validate checks that the configuration is one this package implements.
func (c *Config) Validate() error {
	if c == nil {
		return fmt.Errorf("llavanext: nil config: %w", vision.ErrBadOptions)
	}
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if len(c.Pinpoints) == 0 || len(c.Pinpoints) > 64 {
		return fmt.Errorf("llavanext: %d pinpoints: %w", len(c.Pinpoints), vision.ErrBadOptions)
	}
	for _, p := range c.Pinpoints {
		if p[0] < 1 || p[1] < 1 || p[0] > maxPinpoint || p[1] > maxPinpoint {
			return fmt.Errorf("llavanext: pinpoint %v: %w", p, vision.ErrBadOptions)
		}
	}
	bh, bw := c.BaseSize()
	t := c.TileSize()
	if t < 1 || bh < 1 || bw < 1 {
		return fmt.Errorf("llavanext: tile %d, base size %dx%d: %w", t, bw, bh, vision.ErrBadOptions)
	}
	for _, p := range c.Pinpoints {
		if n := ((p[0] + t - 1) / t) * ((p[1] + t - 1) / t); n > maxTiles {
			return fmt.Errorf("llavanext: pinpoint %v makes %d tiles of %d, over %d: %w", p, n, t, maxTiles, vision.ErrBadOptions)
		}
	}
	return nil
}
