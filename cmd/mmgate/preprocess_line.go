package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mmgate/mmgate/family"
)

// This file answers: where do a model family's extras (Qwen-VL: grid_thw)
// go in a `mmgate preprocess` line? Right after "file", in the family's
// order, before the fields every family has.

// MarshalJSON writes the line with its extras after "file".
func (l preprocessLine) MarshalJSON() ([]byte, error) {
	type plain preprocessLine // the fields without this method
	return marshalWithExtras(l.File, l.Extras, plain(l))
}

// MarshalJSON writes the line with its extras after "file".
func (l preprocessVideoLine) MarshalJSON() ([]byte, error) {
	type plain preprocessVideoLine
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

// encodeJSON is json.Marshal without HTML escaping, as the command prints
// JSON (writeJSONLine).
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
