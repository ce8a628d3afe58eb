package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/preprocess"
	"github.com/mmgate/mmgate/tensor"
)

// This file answers: what does `mmgate preprocess` do? It decodes and
// preprocesses each FILE for a model exactly as the reference processor does
// and prints one JSON line per input, in input order (package
// internal/preprocess). Here the flags become preprocess.Options and the
// outcome an exit status.

const preprocessSynopsis = "preprocess --model PRESET_OR_MODEL_DIR [--min-pixels N] [--max-pixels N] " +
	"[--dtype float32|bfloat16|float16] [--hash] [--out DIR] FILE..."

// preprocessFlags are the flags that are not preprocess.Options fields
// as they are.
type preprocessFlags struct {
	model, dtype, background string
	log                      *logFlags
}

func runPreprocess(ctx context.Context, s *stdio, args []string) int {
	families := builtin.New()
	fs := newFlagSet(s, "preprocess", preprocessSynopsis)
	var o preprocess.Options
	f := addPreprocessFlags(fs, &o, families.Presets())
	files, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(s.err, "mmgate preprocess: "+format+"\n", a...)
		return 2
	}
	if f.model == "" {
		return usageErr("--model is required")
	}
	if len(files) == 0 {
		return usageErr("no input files")
	}
	if o.DType, err = tensor.ParseDType(f.dtype); err != nil || !o.DType.IsFloat() {
		return usageErr("--dtype %q: want float32, bfloat16 or float16", f.dtype)
	}
	bg, err := parseRGB(f.background)
	if err != nil {
		return usageErr("--background: %v", err)
	}
	o.Background = &bg
	if o.Log, err = f.log.logger(s); err != nil {
		return usageErr("%v", err)
	}
	if o.Model, err = families.Open(f.model); err != nil {
		return usageErr("--model: %v", err)
	}
	r, err := preprocess.New(o)
	if err != nil {
		return preprocessStatus(s, err)
	}
	defer r.Close()
	eo := r.Options()
	eo.Log.Debug("preprocess", "model", f.model, "family", eo.Model.Family().Name(), "model_type", eo.Model.ModelType(),
		"min_pixels", eo.MinPixels, "max_pixels", eo.MaxPixels, "dtype", eo.DType.String(), "workers", eo.Workers, "inputs", len(files))
	return preprocessStatus(s, r.Run(ctx, files, s.out))
}

// addPreprocessFlags registers the flags of `mmgate preprocess` on fs,
// those that are Options fields as they are straight into o.
func addPreprocessFlags(fs *flag.FlagSet, o *preprocess.Options, presets []string) *preprocessFlags {
	f := new(preprocessFlags)
	fs.StringVar(&f.model, "model", "", "model preset ("+strings.Join(presets, ", ")+") or model folder (required)")
	fs.IntVar(&o.MinPixels, "min-pixels", 0, "override the model's min_pixels (0: the model's)")
	fs.IntVar(&o.MaxPixels, "max-pixels", 0, "override the model's max_pixels (0: the model's)")
	fs.StringVar(&f.dtype, "dtype", "float32", "pixel_values dtype: float32|bfloat16|float16")
	fs.BoolVar(&o.Hash, "hash", false, "print the sha256 of each tensor's little-endian, row-major bytes")
	fs.StringVar(&o.OutDir, "out", "", "write <basename>.npy per input into `DIR` (bfloat16 as <u2)")
	fs.IntVar(&o.Workers, "workers", 0, "images decoded and processed at the same time (0: GOMAXPROCS)")
	fs.StringVar(&f.background, "background", "255,255,255", "R,G,B background for transparent images")
	fs.String("config", "", "config `FILE` (YAML or JSON)")
	fs.Float64Var(&o.Video.FPS, "fps", 0, "video: sampling rate in frames per second (0: the model's)")
	fs.IntVar(&o.Video.NumFrames, "num-frames", 0, "video: sample this many frames (0: by fps; exclusive with --fps)")
	fs.Float64Var(&o.Video.TotalPixels, "total-pixels", 0, "video: Qwen2/2.5-VL pixel budget over all frames (0: the default)")
	fs.BoolVar(&o.Video.AsVideo, "as-video", false, "decode animated GIFs as videos (with FFmpeg) instead of their first frame")
	f.log = addLogFlags(fs)
	return f
}

// preprocessStatus maps the outcome of a run to the exit status: 2 for
// options to fix, 1 when an input was refused (its line says why), a line
// could not be written or the pipelines could not be built.
func preprocessStatus(s *stdio, err error) int {
	var oe *preprocess.OptionsError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &oe):
		fmt.Fprintf(s.err, "mmgate preprocess: %v\n", err)
		return 2
	case errors.Is(err, preprocess.ErrRefused) || errors.Is(err, preprocess.ErrOutput):
		return 1
	}
	fmt.Fprintf(s.err, "mmgate preprocess: %v\n", err)
	return 1
}

// parseRGB parses "R,G,B" with each component in 0..255.
func parseRGB(s string) ([3]uint8, error) {
	var c [3]uint8
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return c, errors.New("want R,G,B")
	}
	for i, p := range parts {
		var v int
		if _, err := fmt.Sscanf(strings.TrimSpace(p), "%d", &v); err != nil || v < 0 || v > 255 {
			return c, fmt.Errorf("component %q is not in 0..255", p)
		}
		c[i] = uint8(v)
	}
	return c, nil
}
