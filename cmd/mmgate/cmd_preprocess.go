package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/tensormem"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/tensor/npy"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: what does `mmgate preprocess` do? It decodes and
// preprocesses each FILE for a model exactly as the reference processor does
// and prints one JSON line per input, in input order. Images go through
// package internal/imageprep; videos (preprocess_video.go) through
// internal/videoprep.

const preprocessSynopsis = "preprocess --model PRESET_OR_MODEL_DIR [--min-pixels N] [--max-pixels N] " +
	"[--dtype float32|bfloat16|float16] [--hash] [--out DIR] FILE..."

// preprocessLine is the JSON line of one accepted input; the family's
// extras follow "file" (preprocess_line.go).
type preprocessLine struct {
	File      string             `json:"file"`
	Extras    []family.Field     `json:"-"`
	Tokens    int                `json:"tokens"`
	Shape     []int              `json:"shape"`
	DType     string             `json:"dtype"`
	Exact     bool               `json:"exact"`
	TimingsMS preprocessTimingMS `json:"timings_ms"`
	SHA256    string             `json:"sha256,omitempty"`
}

type preprocessTimingMS struct {
	Decode            float64 `json:"decode"`
	Resize            float64 `json:"resize"`
	NormalizePatchify float64 `json:"normalize_patchify"`
}

// preprocessError is the JSON line of a refused input.
type preprocessError struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

type preprocessFlags struct {
	model      string
	minPixels  int
	maxPixels  int
	dtype      tensor.DType
	hash       bool
	out        string
	workers    int
	background [3]uint8
}

func runPreprocess(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "preprocess", preprocessSynopsis)
	var f preprocessFlags
	var dtype, bg string
	families := builtin.New()
	fs.StringVar(&f.model, "model", "", "model preset ("+strings.Join(families.Presets(), ", ")+") or model folder (required)")
	fs.IntVar(&f.minPixels, "min-pixels", 0, "override the model's min_pixels (0: the model's)")
	fs.IntVar(&f.maxPixels, "max-pixels", 0, "override the model's max_pixels (0: the model's)")
	fs.StringVar(&dtype, "dtype", "float32", "pixel_values dtype: float32|bfloat16|float16")
	fs.BoolVar(&f.hash, "hash", false, "print the sha256 of each tensor's little-endian, row-major bytes")
	fs.StringVar(&f.out, "out", "", "write <basename>.npy per input into `DIR` (bfloat16 as <u2)")
	fs.IntVar(&f.workers, "workers", 0, "images decoded and processed at the same time (0: GOMAXPROCS)")
	fs.StringVar(&bg, "background", "255,255,255", "R,G,B background for transparent images")
	fs.String("config", "", "config `FILE` (YAML or JSON)")
	vf := addVideoFlags(fs)
	logf := addLogFlags(fs)
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
	if f.minPixels < 0 || f.maxPixels < 0 {
		return usageErr("--min-pixels and --max-pixels must not be negative")
	}
	if f.workers < 0 {
		return usageErr("--workers must not be negative")
	}
	if msg := vf.validate(); msg != "" {
		return usageErr("%s", msg)
	}
	if f.dtype, err = tensor.ParseDType(dtype); err != nil || !f.dtype.IsFloat() {
		return usageErr("--dtype %q: want float32, bfloat16 or float16", dtype)
	}
	if f.background, err = parseRGB(bg); err != nil {
		return usageErr("--background: %v", err)
	}
	log, err := logf.logger(s)
	if err != nil {
		return usageErr("%v", err)
	}
	var npyNames []string
	if f.out != "" {
		if npyNames, err = npyFileNames(files); err != nil {
			return usageErr("--out: %v", err)
		}
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return usageErr("--out: %v", err)
		}
	}
	if f.workers == 0 {
		f.workers = runtime.GOMAXPROCS(0)
	}
	rs, err := resample.New(resample.Options{})
	if err != nil {
		fmt.Fprintf(s.err, "mmgate preprocess: %v\n", err)
		return 1
	}
	model, err := families.Open(f.model)
	if err != nil {
		return usageErr("--model: %v", err)
	}
	proc, err := model.ImageProcessor(vision.ProcessorOptions{Resizer: releasingResizer{rs}})
	if err != nil {
		return usageErr("--model: %v", err)
	}
	dec, err := newImageDecoder(f.background)
	if err != nil {
		fmt.Fprintf(s.err, "mmgate preprocess: %v\n", err)
		return 1
	}
	pp, err := imageprep.New(imageprep.Options{Decoder: dec, Processor: proc, Concurrency: f.workers})
	if err != nil {
		fmt.Fprintf(s.err, "mmgate preprocess: %v\n", err)
		return 1
	}
	// Videos are optional: without FFmpeg or video support in the model,
	// each video input is refused with the reason and images still run.
	vp, stopVideo, vpErr := modelVideoPreprocessor(model, f.workers, vf)
	if vpErr != nil {
		log.Debug("preprocess: no video support", "error", vpErr.Error())
	} else {
		defer stopVideo()
	}
	pm := preprocessMedia{mem: new(tensormem.Allocator), model: model, images: pp, videos: vp, videoErr: vpErr, video: vf}
	log.Debug("preprocess", "model", f.model, "family", model.Family().Name(), "model_type", model.ModelType(), "min_pixels", f.minPixels,
		"max_pixels", f.maxPixels, "dtype", f.dtype.String(), "workers", f.workers, "inputs", len(files))

	start := time.Now()
	ov := vision.Overrides{MinPixels: f.minPixels, MaxPixels: f.maxPixels}
	warm := 0
	for _, name := range files[:min(f.workers, len(files))] {
		warm += heapEstimate(pp, name, ov)
	}
	tensormem.WarmHeap(warm)
	lines := make([]any, len(files))
	done := make([]chan struct{}, len(files))
	for i := range done {
		done[i] = make(chan struct{})
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(f.workers)
	go func() {
		for i, name := range files {
			g.Go(func() error {
				defer close(done[i])
				npy := ""
				if npyNames != nil {
					npy = filepath.Join(f.out, npyNames[i])
				}
				lines[i] = preprocessOne(gctx, pm, f, name, npy)
				return nil
			})
		}
	}()
	status := 0
	for i := range files {
		<-done[i]
		if _, refused := lines[i].(preprocessError); refused {
			status = 1
		}
		if writeJSONLine(s, lines[i]) != 0 {
			status = 1
		}
		lines[i] = nil
	}
	_ = g.Wait()
	log.Debug("preprocess done", "inputs", len(files), "wall_ms", ms(time.Since(start)))
	return status
}

// preprocessMedia holds the model, the image pipeline and, when available,
// the video pipeline.
type preprocessMedia struct {
	mem      *tensormem.Allocator // where the tensors live
	model    family.Model         // its family's extras go on each line
	images   *imageprep.Preprocessor
	videos   *videoprep.Preprocessor // nil without video support
	videoErr error                   // why videos is nil
	video    *videoFlags
}

// preprocessOne runs one input and returns its JSON line. The tensor lives in
// memory mapped for it alone and is unmapped before returning, after the
// optional hash and .npy file (neither is included in the timings).
func preprocessOne(ctx context.Context, m preprocessMedia, f preprocessFlags, name, npyPath string) any {
	refuse := func(err error) any { return preprocessError{File: name, Error: err.Error()} }
	data, err := os.ReadFile(name)
	if err != nil {
		return refuse(err)
	}
	if isVideo(data, m.video.asVideo) {
		if m.videos == nil && m.videoErr != nil {
			return refuse(fmt.Errorf("video input: %w", m.videoErr))
		}
		return preprocessVideo(ctx, m, f, name, data, npyPath)
	}
	res, err := m.images.Image(ctx, imageprep.Request{
		Data:      data,
		Overrides: vision.Overrides{MinPixels: f.minPixels, MaxPixels: f.maxPixels},
		DType:     f.dtype,
		Alloc:     m.mem.Alloc,
	})
	data = nil
	if res != nil && res.Data != nil {
		defer m.mem.Free(res.Data)
	}
	if err != nil {
		return refuse(err)
	}
	line := preprocessLine{
		File:   name,
		Extras: m.model.Extras(family.ImageItem(res.Plan)),
		Tokens: res.Tokens(),
		Shape:  res.Shape(),
		DType:  res.DType.String(),
		Exact:  res.Exact,
		TimingsMS: preprocessTimingMS{
			Decode:            ms(res.Timings.Decode),
			Resize:            ms(res.Timings.Resize),
			NormalizePatchify: ms(res.Timings.NormalizePatchify),
		},
	}
	sum, err := emitTensor(f, npyPath, res.DType, res.Shape(), res.Data)
	if err != nil {
		return refuse(err)
	}
	line.SHA256 = sum
	return line
}

// emitTensor hashes the tensor (with --hash) and writes it as .npy (with
// --out), after the timed work.
func emitTensor(f preprocessFlags, npyPath string, dt tensor.DType, shape []int, data []byte) (sha string, err error) {
	if f.hash {
		sum := sha256.Sum256(data)
		sha = hex.EncodeToString(sum[:])
	}
	if npyPath != "" {
		if err := npy.WriteFile(npyPath, dt, shape, data); err != nil {
			return "", err
		}
	}
	return sha, nil
}

// ms is a duration in milliseconds, rounded to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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

// npyFileNames maps each input to <basename without extension>.npy and
// refuses two inputs that would write the same file.
func npyFileNames(files []string) ([]string, error) {
	names := make([]string, len(files))
	seen := map[string]string{}
	for i, f := range files {
		base := filepath.Base(f)
		n := strings.TrimSuffix(base, filepath.Ext(base)) + ".npy"
		if prev, dup := seen[n]; dup {
			return nil, fmt.Errorf("%q and %q would both write %s", prev, f, n)
		}
		seen[n] = f
		names[i] = n
	}
	return names, nil
}
