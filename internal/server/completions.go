package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mmgate/mmgate/internal/apierr"
)

// The legacy completion shapes (object "text_completion").
type completion struct {
	ID                string             `json:"id"`
	Object            string             `json:"object"`
	Created           int64              `json:"created"`
	Model             string             `json:"model"`
	Choices           []completionChoice `json:"choices"`
	Usage             *usageJSON         `json:"usage,omitempty"`
	SystemFingerprint *string            `json:"system_fingerprint"`
}

type completionChoice struct {
	Index        int             `json:"index"`
	Text         string          `json:"text"`
	Logprobs     *legacyLogprobs `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

// legacyLogprobs is the completions API's logprobs object: parallel lists
// per token, top_logprobs as token → logprob maps, text_offset the
// character offset of each token in the choice's text.
type legacyLogprobs struct {
	TextOffset    []int                `json:"text_offset"`
	TokenLogprobs []float64            `json:"token_logprobs"`
	Tokens        []string             `json:"tokens"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
}

// appendLegacy adds lp to l; offset is the character offset of the first
// token and the returned value the offset after the last.
func (l *legacyLogprobs) append(lp []Logprob, offset int) int {
	for _, t := range lp {
		l.Tokens = append(l.Tokens, t.Token)
		l.TokenLogprobs = append(l.TokenLogprobs, t.Logprob)
		l.TextOffset = append(l.TextOffset, offset)
		top := make(map[string]float64, len(t.Top))
		for _, a := range t.Top {
			if _, dup := top[a.Token]; !dup {
				top[a.Token] = a.Logprob
			}
		}
		l.TopLogprobs = append(l.TopLogprobs, top)
		offset += utf8.RuneCountInString(t.Token)
	}
	return offset
}

func newLegacyLogprobs() *legacyLogprobs {
	return &legacyLogprobs{TextOffset: []int{}, TokenLogprobs: []float64{}, Tokens: []string{}, TopLogprobs: []map[string]float64{}}
}

// completions handles POST /v1/completions.
func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	c, ok := s.opts.Backend.(Completer)
	if !ok {
		s.writeError(w, r, apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest, "not_found", "completions are not served here", ""))
		return
	}
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		s.writeError(w, r, aerr)
		return
	}
	req, err := ParseCompletion(body)
	if err != nil {
		s.writeError(w, r, s.classify(err))
		return
	}
	rec := recordOf(r)
	if rec != nil {
		rec.model = req.Params.Model
		rec.stream = req.Params.Stream
	}
	gen, err := c.Completion(r.Context(), req, requestID(r))
	if err != nil {
		s.writeError(w, r, s.classify(err))
		return
	}
	defer gen.Close()
	if rec != nil {
		rec.gen = gen
	}
	if req.Params.Stream {
		s.streamCompletion(w, r, req, gen)
		return
	}
	s.wholeCompletion(w, r, req, gen)
}

// readBody reads the request body under the size limit.
// A body of declared length read within a logged request goes into a
// pooled buffer, given back when the request is over (see bodypool.go).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apierr.Error) {
	var (
		body []byte
		err  error
	)
	rd := http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	rec := recordOf(r)
	if rec != nil && rec.body == nil && r.ContentLength <= s.opts.MaxBodyBytes {
		var buf *bodyBuf
		if buf, err = s.bodies.readPooled(rd, r.ContentLength); buf != nil {
			rec.body, body = buf, buf.b
		}
	}
	if body == nil && err == nil {
		body, err = readAllSized(rd, r.ContentLength, s.opts.MaxBodyBytes)
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apierr.New(http.StatusRequestEntityTooLarge, apierr.TypeInvalidRequest, "too_large",
				"request body is over the limit of "+itoa(int(s.opts.MaxBodyBytes))+" bytes", "")
		}
		return nil, apierr.New(http.StatusBadRequest, apierr.TypeInvalidRequest, "invalid_request_error", "reading the body: "+err.Error(), "")
	}
	return body, nil
}

// readAllSized reads r to its end, into one buffer of the declared length
// when there is one within max: one allocation instead of io.ReadAll's
// doubling, for the large bodies that carry images.
func readAllSized(r io.Reader, declared, max int64) ([]byte, error) {
	if declared <= 0 || declared > max {
		return io.ReadAll(r)
	}
	// Room for the final read that sees EOF.
	b, err := readInto(make([]byte, 0, int(declared)+bytes.MinRead), r)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// readInto appends r, to its end, to dst (growing it only when its capacity
// runs short of the final read).
func readInto(dst []byte, r io.Reader) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// wholeCompletion collects every event and writes one text_completion.
func (s *Server) wholeCompletion(w http.ResponseWriter, r *http.Request, req *CompletionRequest, gen Generation) {
	n := gen.Choices()
	type acc struct {
		text   strings.Builder
		lp     *legacyLogprobs
		offset int
		finish string
	}
	choices := make([]acc, n)
	for i := range choices {
		if req.Logprobs != nil {
			choices[i].lp = newLegacyLogprobs()
		}
	}
	var usage *Usage
	for {
		ev, err := gen.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.writeError(w, r, s.classify(err))
			return
		}
		if ev.Usage != nil {
			usage = ev.Usage
		}
		if ev.Index < 0 || ev.Index >= n {
			continue
		}
		c := &choices[ev.Index]
		c.text.WriteString(ev.Text)
		if c.lp != nil {
			c.offset = c.lp.append(ev.Logprobs, c.offset)
		}
		if ev.FinishReason != "" {
			c.finish = ev.FinishReason
		}
	}
	resp := completion{
		ID: "cmpl-" + requestID(r), Object: "text_completion", Created: s.now().Unix(),
		Model: gen.Model(), Choices: make([]completionChoice, 0, n), Usage: toUsage(usage),
	}
	for i := range choices {
		c := &choices[i]
		resp.Choices = append(resp.Choices, completionChoice{Index: i, Text: c.text.String(), Logprobs: c.lp, FinishReason: strPtr(orDefault(c.finish, "stop"))})
	}
	writeJSON(w, http.StatusOK, resp)
}

// streamCompletion writes one text_completion chunk per piece of text, the
// finish reason on each choice's last chunk, an optional usage chunk (empty
// choices), then [DONE]. An error after the stream started is one
// `data: {"error": ...}` event followed by [DONE].
func (s *Server) streamCompletion(w http.ResponseWriter, r *http.Request, req *CompletionRequest, gen Generation) {
	sse := newSSE(w)
	id := "cmpl-" + requestID(r)
	created := s.now().Unix()
	n := gen.Choices()
	offsets := make([]int, n)
	usage, ok := s.pump(r, sse, gen, func(ev Event) {
		if ev.Index < 0 || ev.Index >= n {
			return
		}
		if ev.Text == "" && ev.FinishReason == "" && (req.Logprobs == nil || len(ev.Logprobs) == 0) {
			return
		}
		ch := completionChoice{Index: ev.Index, Text: ev.Text}
		if req.Logprobs != nil {
			ch.Logprobs = newLegacyLogprobs()
			offsets[ev.Index] = ch.Logprobs.append(ev.Logprobs, offsets[ev.Index])
		}
		if ev.FinishReason != "" {
			ch.FinishReason = strPtr(ev.FinishReason)
		}
		sse.event(completion{ID: id, Object: "text_completion", Created: created, Model: gen.Model(), Choices: []completionChoice{ch}})
	})
	if !ok {
		return
	}
	if req.Params.IncludeUsage && usage != nil {
		sse.event(completion{ID: id, Object: "text_completion", Created: created, Model: gen.Model(), Choices: []completionChoice{}, Usage: toUsage(usage)})
	}
	sse.done()
}
