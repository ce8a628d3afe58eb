package planar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/vision"
)

// RawConfig holds the preprocessor_config.json fields the plane-keeping
// image processors share. A nil pointer (or empty RawMessage) means the
// field is absent or null, which transformers resolves to the class
// default. Family packages embed it in their own raw structs.
type RawConfig struct {
	DoResize      *bool           `json:"do_resize"`
	DoRescale     *bool           `json:"do_rescale"`
	DoNormalize   *bool           `json:"do_normalize"`
	DoCenterCrop  *bool           `json:"do_center_crop"`
	DoConvertRGB  *bool           `json:"do_convert_rgb"`
	RescaleFactor *float64        `json:"rescale_factor"`
	Resample      *float64        `json:"resample"`
	ImageMean     json.RawMessage `json:"image_mean"`
	ImageStd      json.RawMessage `json:"image_std"`
	Size          json.RawMessage `json:"size"`
	CropSize      json.RawMessage `json:"crop_size"`
}

// Defaults are an image processor class's values for absent fields.
type Defaults struct {
	Mean, Std [3]float64
	Resample  resample.Filter
}

// DefaultRescale is transformers' rescale_factor default, 1/255.
const DefaultRescale = 1.0 / 255.0

// Norm resolves the rescale and normalize settings.
func (r *RawConfig) Norm(d Defaults) (NormParams, error) {
	p := NormParams{
		Rescale:     DefaultRescale,
		DoRescale:   Bool(r.DoRescale, true),
		DoNormalize: Bool(r.DoNormalize, true),
	}
	if r.RescaleFactor != nil {
		p.Rescale = *r.RescaleFactor
	}
	var err error
	if p.Mean, err = meanStd("image_mean", r.ImageMean, d.Mean); err != nil {
		return p, err
	}
	if p.Std, err = meanStd("image_std", r.ImageStd, d.Std); err != nil {
		return p, err
	}
	if !p.Valid() {
		return p, fmt.Errorf("rescale_factor %v, image_mean %v, image_std %v: %w", p.Rescale, p.Mean, p.Std, vision.ErrBadOptions)
	}
	return p, nil
}

// Filter resolves resample (a Pillow filter code).
func (r *RawConfig) Filter(d Defaults) (resample.Filter, error) {
	code, err := Int("resample", r.Resample, int(d.Resample))
	if err != nil {
		return 0, err
	}
	f := resample.Filter(code)
	if f < resample.Nearest || f > resample.Hamming {
		return 0, fmt.Errorf("resample %d: %w", code, vision.ErrUnsupported)
	}
	return f, nil
}

// First returns the first non-empty string of s, or "".
func First(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// Bool returns *p, or def when p is nil.
func Bool(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// Int returns *v as an int, or def when v is nil; a value that is not a
// non-negative integer is an error naming the field.
func Int(name string, v *float64, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	f := *v
	if f != math.Trunc(f) || f < 0 || f > 1<<40 {
		return 0, fmt.Errorf("%s = %v: not a non-negative integer: %w", name, f, vision.ErrBadOptions)
	}
	return int(f), nil
}

// meanStd parses a list of three numbers, a list of one, or one number.
func meanStd(name string, raw json.RawMessage, def [3]float64) ([3]float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return def, nil
	}
	var one float64
	if err := json.Unmarshal(raw, &one); err == nil {
		return [3]float64{one, one, one}, nil
	}
	var list []float64
	if err := json.Unmarshal(raw, &list); err != nil {
		return def, fmt.Errorf("%s: %v: %w", name, err, vision.ErrBadOptions)
	}
	switch len(list) {
	case 1:
		return [3]float64{list[0], list[0], list[0]}, nil
	case 3:
		return [3]float64{list[0], list[1], list[2]}, nil
	}
	return def, fmt.Errorf("%s: %d values, want 1 or 3: %w", name, len(list), vision.ErrBadOptions)
}

// Size is a transformers size dict. Zero fields are absent.
type Size struct {
	Height, Width int
	ShortestEdge  int
	LongestEdge   int
}

// ParseSize resolves a size or crop_size field as get_size_dict does: a
// number is {height, width} when defaultToSquare, else {shortest_edge};
// an object keeps its keys. An absent field yields def.
func ParseSize(name string, raw json.RawMessage, defaultToSquare bool, def Size) (Size, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return def, nil
	}
	var n float64
	if err := json.Unmarshal(raw, &n); err == nil {
		v, err := Int(name, &n, 0)
		if err != nil {
			return def, err
		}
		if defaultToSquare {
			return Size{Height: v, Width: v}, nil
		}
		return Size{ShortestEdge: v}, nil
	}
	var obj struct {
		Height       *float64 `json:"height"`
		Width        *float64 `json:"width"`
		ShortestEdge *float64 `json:"shortest_edge"`
		LongestEdge  *float64 `json:"longest_edge"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return def, fmt.Errorf("%s: %v: %w", name, err, vision.ErrBadOptions)
	}
	var s Size
	var err error
	for _, f := range []struct {
		key string
		src *float64
		dst *int
	}{{"height", obj.Height, &s.Height}, {"width", obj.Width, &s.Width},
		{"shortest_edge", obj.ShortestEdge, &s.ShortestEdge}, {"longest_edge", obj.LongestEdge, &s.LongestEdge}} {
		if *f.dst, err = Int(name+"."+f.key, f.src, 0); err != nil {
			return def, err
		}
	}
	return s, nil
}

// DecodeStrict unmarshals one JSON value and refuses trailing data.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// Files are the JSON files of a model folder the processors read; a nil
// field means the file is absent.
type Files struct {
	Preprocessor []byte // preprocessor_config.json (required)
	Processor    []byte // processor_config.json
	Tokenizer    []byte // tokenizer_config.json
	Model        []byte // config.json
}

// ReadFiles reads a model folder's Files. A missing preprocessor_config.json
// is an error wrapping vision.ErrBadOptions; the others may be absent.
func ReadFiles(dir string) (Files, error) {
	var f Files
	for _, x := range []struct {
		name     string
		dst      *[]byte
		optional bool
	}{{"preprocessor_config.json", &f.Preprocessor, false}, {"processor_config.json", &f.Processor, true},
		{"tokenizer_config.json", &f.Tokenizer, true}, {"config.json", &f.Model, true}} {
		b, err := os.ReadFile(filepath.Join(dir, x.name))
		switch {
		case err == nil:
			*x.dst = b
		case !x.optional || !errors.Is(err, fs.ErrNotExist):
			return f, fmt.Errorf("%s: %v: %w", x.name, err, vision.ErrBadOptions)
		}
	}
	return f, nil
}

// DecodeAll decodes each file of f into its target: preprocessor_config.json
// (required) into pre, processor_config.json into proc,
// tokenizer_config.json into tok and config.json into model. Absent files
// and nil targets are skipped.
func (f Files) DecodeAll(pre, proc, tok, model any) error {
	if f.Preprocessor == nil {
		return fmt.Errorf("no preprocessor_config.json: %w", vision.ErrBadOptions)
	}
	for _, x := range []struct {
		name string
		data []byte
		v    any
	}{{"preprocessor_config.json", f.Preprocessor, pre}, {"processor_config.json", f.Processor, proc},
		{"tokenizer_config.json", f.Tokenizer, tok}, {"config.json", f.Model, model}} {
		if x.v == nil {
			continue
		}
		if err := Decode(x.name, x.data, x.v); err != nil {
			return err
		}
	}
	return nil
}

// Decode unmarshals the file called name into v; nil data (an absent file)
// leaves v as it is. Errors wrap vision.ErrBadOptions and name the file.
func Decode(name string, data []byte, v any) error {
	if data == nil {
		return nil
	}
	if err := DecodeStrict(data, v); err != nil {
		return fmt.Errorf("%s: %v: %w", name, err, vision.ErrBadOptions)
	}
	return nil
}
