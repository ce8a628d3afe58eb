package chattemplate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/ardanlabs/jinja"
)

// maxDepth bounds the nesting of values handed to a template.
const maxDepth = 256

// Field is one key of an Object.
type Field struct {
	Key   string
	Value any
}

// Object is a JSON object whose keys keep their order, as Python dicts do.
// Templates see the keys in this order (for example in tojson output).
type Object []Field

// Get returns the value of the first field named key.
func (o Object) Get(key string) (any, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// toValue converts a Go value to a template value. Accepted: nil, bool,
// all integer kinds, float32/64, string, json.Number, json.RawMessage
// (decoded keeping key order), Object, []any and other slices, and
// map[string]any (keys sorted, since Go maps have no order).
func toValue(v any, depth int) (jinja.Value, error) {
	if depth > maxDepth {
		return jinja.Undefined(), fmt.Errorf("value nested deeper than %d: %w", maxDepth, ErrBadInput)
	}
	switch x := v.(type) {
	case nil:
		return jinja.None(), nil
	case jinja.Value:
		return x, nil
	case bool:
		return jinja.NewBool(x), nil
	case string:
		return jinja.NewString(x), nil
	case int:
		return jinja.NewInt(int64(x)), nil
	case int64:
		return jinja.NewInt(x), nil
	case int32:
		return jinja.NewInt(int64(x)), nil
	case uint32:
		return jinja.NewInt(int64(x)), nil
	case float64:
		return jinja.NewFloat(x), nil
	case float32:
		return jinja.NewFloat(float64(x)), nil
	case json.Number:
		return numberValue(x), nil
	case json.RawMessage:
		return decodeJSON(x)
	case Object:
		return dictValue(len(x), func(i int) (string, any) { return x[i].Key, x[i].Value }, depth)
	case []any:
		return listValue(len(x), func(i int) any { return x[i] }, depth)
	case []Object:
		return listValue(len(x), func(i int) any { return x[i] }, depth)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return dictValue(len(keys), func(i int) (string, any) { return keys[i], x[keys[i]] }, depth)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return listValue(rv.Len(), func(i int) any { return rv.Index(i).Interface() }, depth)
	}
	return jinja.Undefined(), fmt.Errorf("value of type %T: %w", v, ErrBadInput)
}

// listValue converts the n items at(0), at(1)… of a value at depth to a
// template list.
func listValue(n int, at func(int) any, depth int) (jinja.Value, error) {
	items := make([]jinja.Value, n)
	for i := range n {
		iv, err := toValue(at(i), depth+1)
		if err != nil {
			return jinja.Undefined(), err
		}
		items[i] = iv
	}
	return jinja.NewList(items), nil
}

// dictValue converts the n fields field(0), field(1)… of a value at depth
// to a template dict, in that order.
func dictValue(n int, field func(int) (string, any), depth int) (jinja.Value, error) {
	d := jinja.NewDict()
	dict := d.AsDict()
	for i := range n {
		k, v := field(i)
		fv, err := toValue(v, depth+1)
		if err != nil {
			return jinja.Undefined(), err
		}
		dict.Set(k, fv)
	}
	return d, nil
}

// numberValue keeps Python's int/float distinction: a JSON number without
// '.', 'e' or 'E' is an int (when it fits int64), otherwise a float.
func numberValue(n json.Number) jinja.Value {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := n.Int64(); err == nil {
			return jinja.NewInt(i)
		}
	}
	f, err := n.Float64()
	if err != nil {
		// Out of float64 range: Python's json gives inf.
		f = math.Inf(1)
		if strings.HasPrefix(s, "-") {
			f = math.Inf(-1)
		}
	}
	return jinja.NewFloat(f)
}

// decodeJSON decodes one JSON value keeping object key order (a repeated
// key keeps its first position and its last value, as Python dicts do).
func decodeJSON(data []byte) (jinja.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return jinja.Undefined(), fmt.Errorf("json: %v: %w", err, ErrBadInput)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return jinja.Undefined(), fmt.Errorf("json: trailing data: %w", ErrBadInput)
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (jinja.Value, error) {
	if depth > maxDepth {
		return jinja.Undefined(), fmt.Errorf("nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return jinja.Undefined(), err
	}
	switch t := tok.(type) {
	case nil:
		return jinja.None(), nil
	case bool:
		return jinja.NewBool(t), nil
	case string:
		return jinja.NewString(t), nil
	case json.Number:
		return numberValue(t), nil
	case json.Delim:
		switch t {
		case '[':
			var items []jinja.Value
			for dec.More() {
				it, err := decodeValue(dec, depth+1)
				if err != nil {
					return jinja.Undefined(), err
				}
				items = append(items, it)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Undefined(), err
			}
			return jinja.NewList(items), nil
		case '{':
			d := jinja.NewDict()
			dict := d.AsDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jinja.Undefined(), err
				}
				k, _ := kt.(string)
				val, err := decodeValue(dec, depth+1)
				if err != nil {
					return jinja.Undefined(), err
				}
				dict.Set(k, val)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Undefined(), err
			}
			return d, nil
		}
	}
	return jinja.Undefined(), fmt.Errorf("unexpected token %v", tok)
}

// DecodeJSON decodes one JSON value into ordered Go values: Object for
// objects, []any for arrays, string, json.Number, bool and nil.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeGo(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("chattemplate: json: %v: %w", err, ErrBadInput)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("chattemplate: json: trailing data: %w", ErrBadInput)
	}
	return v, nil
}

func decodeGo(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '[':
		list := []any{}
		for dec.More() {
			it, err := decodeGo(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, it)
		}
		_, err := dec.Token()
		return list, err
	case '{':
		obj := Object{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			val, err := decodeGo(dec, depth+1)
			if err != nil {
				return nil, err
			}
			replaced := false
			for i := range obj {
				if obj[i].Key == k {
					obj[i].Value, replaced = val, true
					break
				}
			}
			if !replaced {
				obj = append(obj, Field{Key: k, Value: val})
			}
		}
		_, err := dec.Token()
		return obj, err
	}
	return nil, fmt.Errorf("unexpected delimiter %v", d)
}
