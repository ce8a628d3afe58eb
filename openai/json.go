package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxRequestDepth bounds JSON nesting in request bodies, so that every
// later decoding of a part of one (ordered template values) stays bounded.
const maxRequestDepth = 128

func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	return raw
}

// jsonError turns an encoding/json error into a request error.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return BadRequest("", "the body must be a JSON object")
		}
		// The path names the embedded struct of the shared fields; the
		// client knows only the field.
		field := strings.TrimPrefix(strings.TrimPrefix(te.Field, "rawParams."), "rawRender.")
		return BadRequest(field, fmt.Sprintf("expected %s, got JSON %s", te.Type, te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return BadRequest("", fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se))
	}
	return BadRequest("", "invalid JSON: "+err.Error())
}

// decodeBody decodes a request body into v after checking its depth.
func decodeBody(body []byte, v any) error {
	if err := checkDepth(body); err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return jsonError(err)
	}
	return nil
}

// checkDepth refuses bodies nested deeper than maxRequestDepth (beyond
// what encoding/json itself allows).
func checkDepth(body []byte) error {
	depth := 0
	inString := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > maxRequestDepth {
				return BadRequest("", fmt.Sprintf("JSON nested deeper than %d", maxRequestDepth))
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}
