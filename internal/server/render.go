package server

import (
	"context"
	"net/http"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/openai"
)

// This file answers: how are vLLM's render routes served? POST
// /v1/chat/completions/render (one GenerateRequest), POST
// /v1/completions/render (always a list, one per prompt), POST /tokenize
// and POST /detokenize, on the same listener, API keys, in-flight limit,
// access log and metrics as the chat routes, with large bodies parsed on
// the heavy pool as chat bodies are.

// RenderAPI is vLLM's render API. A Backend that implements it serves the
// render routes; errors map to statuses as Chat's do.
type RenderAPI interface {
	// RenderChat renders a chat request; requestID makes the answer's
	// request_id.
	RenderChat(ctx context.Context, req *openai.ChatRequest, requestID string) (*openai.GenerateRequest, error)
	// RenderCompletions renders each prompt of a completions request, in
	// order.
	RenderCompletions(ctx context.Context, reqs []*openai.CompletionRequest, requestID string) ([]*openai.GenerateRequest, error)
	Tokenize(ctx context.Context, req *openai.TokenizeRequest) (*openai.TokenizeResponse, error)
	Detokenize(ctx context.Context, req *openai.DetokenizeRequest) (*openai.DetokenizeResponse, error)
}

// routeRender registers the render routes.
func (s *Server) routeRender() {
	for _, r := range []struct {
		pattern, route string
		h              func(RenderAPI, http.ResponseWriter, *http.Request)
	}{
		{"POST /v1/chat/completions/render", "/v1/chat/completions/render", s.renderChat},
		{"POST /v1/completions/render", "/v1/completions/render", s.renderCompletions},
		{"POST /tokenize", "/tokenize", s.tokenize},
		{"POST /detokenize", "/detokenize", s.detokenize},
	} {
		s.mux.Handle(r.pattern, s.api(r.route, func(w http.ResponseWriter, req *http.Request) {
			ra, ok := s.opts.Backend.(RenderAPI)
			if !ok {
				s.writeError(w, req, apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest, "not_found", "the render API is not served here", ""))
				return
			}
			r.h(ra, w, req)
		}))
	}
}

// renderChat handles POST /v1/chat/completions/render.
func (s *Server) renderChat(ra RenderAPI, w http.ResponseWriter, r *http.Request) {
	s.serveRender(w, r, func(body []byte) (string, func() (any, error), error) {
		req, err := openai.ParseChat(body)
		if err != nil {
			return "", nil, err
		}
		return req.Model, func() (any, error) { return ra.RenderChat(r.Context(), req, requestID(r)) }, nil
	})
}

// renderCompletions handles POST /v1/completions/render.
func (s *Server) renderCompletions(ra RenderAPI, w http.ResponseWriter, r *http.Request) {
	s.serveRender(w, r, func(body []byte) (string, func() (any, error), error) {
		reqs, err := openai.ParseCompletionBatch(body)
		if err != nil {
			return "", nil, err
		}
		return reqs[0].Params.Model, func() (any, error) { return ra.RenderCompletions(r.Context(), reqs, requestID(r)) }, nil
	})
}

// tokenize handles POST /tokenize.
func (s *Server) tokenize(ra RenderAPI, w http.ResponseWriter, r *http.Request) {
	s.serveRender(w, r, func(body []byte) (string, func() (any, error), error) {
		req, err := openai.ParseTokenize(body)
		if err != nil {
			return "", nil, err
		}
		return req.Model, func() (any, error) { return ra.Tokenize(r.Context(), req) }, nil
	})
}

// detokenize handles POST /detokenize.
func (s *Server) detokenize(ra RenderAPI, w http.ResponseWriter, r *http.Request) {
	s.serveRender(w, r, func(body []byte) (string, func() (any, error), error) {
		req, err := openai.ParseDetokenize(body)
		if err != nil {
			return "", nil, err
		}
		return req.Model, func() (any, error) { return ra.Detokenize(r.Context(), req) }, nil
	})
}

// serveRender reads the body and parses it — on the heavy pool when it is
// large (media inline), as chat bodies are — into the request's model (for
// the access log) and the call that answers it, then writes the answer or
// the error.
func (s *Server) serveRender(w http.ResponseWriter, r *http.Request, parse func(body []byte) (string, func() (any, error), error)) {
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		s.writeError(w, r, aerr)
		return
	}
	var (
		model  string
		answer func() (any, error)
		err    error
	)
	run := func() { model, answer, err = parse(body) }
	if s.opts.Heavy != nil && len(body) >= heavyBody {
		if rerr := s.opts.Heavy(r.Context(), run); rerr != nil {
			err = rerr
		}
	} else {
		run()
	}
	if err != nil {
		s.writeError(w, r, apierr.From(err))
		return
	}
	if rec := recordOf(r); rec != nil {
		rec.model = model
	}
	out, err := answer()
	if err != nil {
		s.writeError(w, r, apierr.From(err))
		return
	}
	writeJSON(w, http.StatusOK, out)
}
