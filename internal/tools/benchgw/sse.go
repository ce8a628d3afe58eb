package benchgw

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// errBadStream: the reply is not a well-formed chat completion SSE stream.
var errBadStream = errors.New("malformed SSE stream")

// apiError is an OpenAI error object, from an error reply or an error event.
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// code returns the error's code (a JSON string or number), else its type.
func (e *apiError) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil && s != "" {
		return s
	}
	if c := strings.TrimSpace(string(e.Code)); c != "" && c != "null" {
		return c
	}
	return e.Type
}

// streamResult is what one streamed chat completion carried.
type streamResult struct {
	text         string    // the concatenated content deltas
	firstContent time.Time // when the first non-empty content delta was read; zero if none
	done         bool      // "data: [DONE]" was read
	apiErr       *apiError // an error event, if one came
}

// chunk is the part of a chat.completion.chunk the client reads.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
	Error *apiError `json:"error"`
}

// readStream reads a text/event-stream of chat completion chunks until
// [DONE] or the end of r. now is called when the first content arrives.
// It reads "data:" fields only (events, ids, comments and retry are
// ignored), joining multi-line data with "\n" as the SSE standard says.
func readStream(r io.Reader, now func() time.Time) (streamResult, error) {
	var (
		res  streamResult
		text strings.Builder
		data []byte
		have bool // a data field was seen in the current event
		line []byte
	)
	br := bufio.NewReaderSize(r, 32<<10)
	dispatch := func() error {
		defer func() { data, have = data[:0], false }()
		if !have {
			return nil
		}
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			res.done = true
			return nil
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("%w: event %.80q: %v", errBadStream, data, err)
		}
		if c.Error != nil {
			res.apiErr = c.Error
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content == "" {
				continue
			}
			if res.firstContent.IsZero() {
				res.firstContent = now()
			}
			text.WriteString(ch.Delta.Content)
		}
		return nil
	}
	for !res.done {
		frag, err := br.ReadSlice('\n')
		line = append(line[:0], frag...)
		for errors.Is(err, bufio.ErrBufferFull) {
			frag, err = br.ReadSlice('\n')
			line = append(line, frag...)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			res.text = text.String()
			return res, err
		}
		eof := err != nil
		l := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		switch {
		case len(l) == 0:
			if derr := dispatch(); derr != nil {
				res.text = text.String()
				return res, derr
			}
		case l[0] == ':':
		default:
			field, value, _ := bytes.Cut(l, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			if string(field) == "data" {
				if have {
					data = append(data, '\n')
				}
				data = append(data, value...)
				have = true
			}
		}
		if eof {
			if derr := dispatch(); derr != nil {
				res.text = text.String()
				return res, derr
			}
			break
		}
	}
	res.text = text.String()
	return res, nil
}
