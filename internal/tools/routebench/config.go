package routebench

import (
	"errors"
	"io"
	"slices"
)

// Config describes one run. Binary is required; zero values mean the
// defaults noted.
type Config struct {
	Binary   string // the mmgate binary
	ModelDir string // model folder; "" materializes the demo model into WorkDir
	WorkDir  string // scratch directory ("" a temporary one, removed after)

	// Policies are the gateway's --policy values to compare, in order;
	// default cache_aware, least_loaded, round_robin.
	Policies      []string
	Workers       int     // reference workers; default 4
	Conversations int     // default 32
	Turns         int     // turns per conversation; default 4
	Concurrency   int     // conversations in flight; default 8
	ImageSize     int     // the conversations' square images, pixels; default 512
	MaxTokens     int     // tokens generated per turn; default 16
	PrefillRate   float64 // the workers' --prefill-rate, tokens/s; default 5000; negative: none

	Log io.Writer // progress lines; nil discards
}

// Short is the configuration of a quick run: 2 workers, 8 conversations of
// 3 turns, 4 at a time.
func Short() Config {
	return Config{Workers: 2, Conversations: 8, Turns: 3, Concurrency: 4}
}

// Shorten sets Short's sizes on c: workers, conversations, turns and
// concurrency, each unless given(name) says it was given (the names are
// `mmgate bench routing`'s flags).
func (c *Config) Shorten(given func(name string) bool) {
	sh := Short()
	for _, f := range []struct {
		name string
		p    *int
		v    int
	}{
		{"workers", &c.Workers, sh.Workers},
		{"conversations", &c.Conversations, sh.Conversations},
		{"turns", &c.Turns, sh.Turns},
		{"concurrency", &c.Concurrency, sh.Concurrency},
	} {
		if !given(f.name) {
			*f.p = f.v
		}
	}
}

func (c *Config) defaults() error {
	if c.Binary == "" {
		return errors.New("routebench: Config.Binary is required")
	}
	if len(c.Policies) == 0 {
		c.Policies = []string{"cache_aware", "least_loaded", "round_robin"}
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Workers, 4)
	def(&c.Conversations, 32)
	def(&c.Turns, 4)
	def(&c.Concurrency, 8)
	def(&c.ImageSize, 512)
	def(&c.MaxTokens, 16)
	if c.PrefillRate == 0 {
		c.PrefillRate = 5000
	}
	if c.Workers < 1 || c.Conversations < 1 || c.Turns < 1 || c.Concurrency < 1 || c.ImageSize < 32 || c.MaxTokens < 1 {
		return errors.New("routebench: workers, conversations, turns, concurrency and max tokens must be positive, the image at least 32 pixels")
	}
	if slices.Contains(c.Policies, "") {
		return errors.New("routebench: an empty policy name")
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}
