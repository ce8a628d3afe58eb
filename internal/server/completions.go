package server

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/openai"
)

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
	req, err := openai.ParseCompletion(body)
	if err != nil {
		s.writeError(w, r, apierr.From(err))
		return
	}
	rec := recordOf(r)
	if rec != nil {
		rec.model = req.Params.Model
		rec.stream = req.Params.Stream
	}
	gen, err := c.Completion(r.Context(), req, requestID(r))
	if err != nil {
		s.writeError(w, r, apierr.From(err))
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

// appendLegacy adds lp to l in the completions API's shape; offset is the
// character offset of the first token and the returned value the offset
// after the last.
func appendLegacy(l *openai.CompletionLogprobs, lp []openai.Logprob, offset int) int {
	for _, t := range lp {
		l.Tokens = append(l.Tokens, t.Token)
		l.TokenLogprobs = append(l.TokenLogprobs, t.Logprob)
		l.TextOffset = append(l.TextOffset, offset)
		top := make(map[string]float64, len(t.TopLogprobs))
		for _, a := range t.TopLogprobs {
			if _, dup := top[a.Token]; !dup {
				top[a.Token] = a.Logprob
			}
		}
		l.TopLogprobs = append(l.TopLogprobs, top)
		offset += utf8.RuneCountInString(t.Token)
	}
	return offset
}

func newLegacyLogprobs() *openai.CompletionLogprobs {
	return &openai.CompletionLogprobs{TextOffset: []int{}, TokenLogprobs: []float64{}, Tokens: []string{}, TopLogprobs: []map[string]float64{}}
}

// wholeCompletion collects every event and writes one text_completion.
func (s *Server) wholeCompletion(w http.ResponseWriter, r *http.Request, req *openai.CompletionRequest, gen openai.Generation) {
	n := gen.Choices()
	type acc struct {
		text   strings.Builder
		lp     *openai.CompletionLogprobs
		offset int
		finish string
	}
	choices := make([]acc, n)
	for i := range choices {
		if req.Logprobs != nil {
			choices[i].lp = newLegacyLogprobs()
		}
	}
	var usage *openai.Usage
	for {
		ev, err := gen.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.writeError(w, r, apierr.From(err))
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
			c.offset = appendLegacy(c.lp, ev.Logprobs, c.offset)
		}
		if ev.FinishReason != "" {
			c.finish = ev.FinishReason
		}
	}
	resp := openai.Completion{
		ID: "cmpl-" + requestID(r), Object: "text_completion", Created: s.now().Unix(),
		Model: gen.Model(), Choices: make([]openai.CompletionChoice, 0, n), Usage: usage,
	}
	for i := range choices {
		c := &choices[i]
		resp.Choices = append(resp.Choices, openai.CompletionChoice{Index: i, Text: c.text.String(), Logprobs: c.lp, FinishReason: strPtr(orDefault(c.finish, "stop"))})
	}
	writeJSON(w, http.StatusOK, resp)
}

// streamCompletion writes one text_completion chunk per piece of text, the
// finish reason on each choice's last chunk, an optional usage chunk (empty
// choices), then [DONE]. An error after the stream started is one
// `data: {"error": ...}` event followed by [DONE].
func (s *Server) streamCompletion(w http.ResponseWriter, r *http.Request, req *openai.CompletionRequest, gen openai.Generation) {
	sse := newSSE(w)
	chunk := openai.Completion{ID: "cmpl-" + requestID(r), Object: "text_completion", Created: s.now().Unix(), Model: gen.Model()}
	var choice [1]openai.CompletionChoice
	n := gen.Choices()
	offsets := make([]int, n)
	usage, ok := s.pump(r, sse, gen, func(ev openai.Event) {
		if ev.Index < 0 || ev.Index >= n {
			return
		}
		if ev.Text == "" && ev.FinishReason == "" && (req.Logprobs == nil || len(ev.Logprobs) == 0) {
			return
		}
		choice[0] = openai.CompletionChoice{Index: ev.Index, Text: ev.Text}
		if req.Logprobs != nil {
			choice[0].Logprobs = newLegacyLogprobs()
			offsets[ev.Index] = appendLegacy(choice[0].Logprobs, ev.Logprobs, offsets[ev.Index])
		}
		if ev.FinishReason != "" {
			choice[0].FinishReason = &ev.FinishReason
		}
		chunk.Choices = choice[:]
		sse.event(&chunk)
	})
	if !ok {
		return
	}
	if req.Params.IncludeUsage && usage != nil {
		chunk.Choices, chunk.Usage = []openai.CompletionChoice{}, usage
		sse.event(&chunk)
	}
	sse.done()
}
