package hfconfig

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mmgate/mmgate/vision"
)

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

// MeanStd parses image_mean or image_std: a list of three numbers, a list
// of one, or one number; absent or null gives def.
func MeanStd(name string, raw json.RawMessage, def [3]float64) ([3]float64, error) {
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
