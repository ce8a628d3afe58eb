package preprocess

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/family"
)

// This file answers: what does a line say, and where do a model family's
// extras (Qwen-VL: grid_thw) go in it? Right after "file", in the family's
// order, before the fields every family has.

// Line is the JSON line of an accepted image.
type Line struct {
	File      string         `json:"file"`
	Extras    []family.Field `json:"-"` // written after "file"
	Tokens    int            `json:"tokens"`
	Shape     []int          `json:"shape"`
	DType     string         `json:"dtype"`
	Exact     bool           `json:"exact"`
	TimingsMS TimingsMS      `json:"timings_ms"`
	SHA256    string         `json:"sha256,omitempty"`
}

// VideoLine is the JSON line of an accepted video: the image fields plus
// the sampled source frame indices, the average frame rate and the model's
// timing metadata.
type VideoLine struct {
	File            string         `json:"file"`
	Extras          []family.Field `json:"-"` // written after "file"
	Tokens          int            `json:"tokens"`
	Shape           []int          `json:"shape"`
	DType           string         `json:"dtype"`
	Exact           bool           `json:"exact"`
	Frames          []int          `json:"frames"`
	FPS             float64        `json:"fps"`
	Timestamps      []float64      `json:"timestamps,omitempty"`
	SecondPerGridTS *float64       `json:"second_per_grid_ts,omitempty"`
	TimingsMS       TimingsMS      `json:"timings_ms"`
	SHA256          string         `json:"sha256,omitempty"`
}

// TimingsMS are a line's stage times in milliseconds, rounded to the
// microsecond.
type TimingsMS struct {
	Decode            float64 `json:"decode"`
	Resize            float64 `json:"resize"`
	NormalizePatchify float64 `json:"normalize_patchify"`
}

// ErrorLine is the JSON line of a refused input.
type ErrorLine struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

func refuse(name string, err error) ErrorLine { return ErrorLine{File: name, Error: err.Error()} }

// ms is a duration in milliseconds, rounded to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// MarshalJSON writes the line with its extras after "file".
func (l Line) MarshalJSON() ([]byte, error) {
	type plain Line // the fields without this method
	return marshalWithExtras(l.File, l.Extras, plain(l))
}

// MarshalJSON writes the line with its extras after "file".
func (l VideoLine) MarshalJSON() ([]byte, error) {
	type plain VideoLine
	return marshalWithExtras(l.File, l.Extras, plain(l))
}

// marshalWithExtras encodes v, a struct whose first JSON field is "file"
// holding file, and inserts extras after that field.
func marshalWithExtras(file string, extras []family.Field, v any) ([]byte, error) {
	body, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	head, err := encodeJSON(map[string]string{"file": file})
	if err != nil {
		return nil, err
	}
	prefix := head[:len(head)-1] // {"file":"…"
	if !bytes.HasPrefix(body, prefix) {
		return nil, fmt.Errorf("preprocess line: %s does not start with the file", body)
	}
	var b bytes.Buffer
	b.Write(prefix)
	for _, f := range extras {
		k, err := encodeJSON(f.Key)
		if err != nil {
			return nil, err
		}
		val, err := encodeJSON(f.Value)
		if err != nil {
			return nil, err
		}
		b.WriteByte(',')
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.Write(body[len(prefix):])
	return b.Bytes(), nil
}

// encodeJSON is json.Marshal without HTML escaping, as the lines are
// written (writeLine).
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
