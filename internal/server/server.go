package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/internal/reqlog"
	"github.com/mmgate/mmgate/openai"
)

// Options configure a Server. Backend is required.
type Options struct {
	Backend Backend
	// MaxBodyBytes limits request bodies (default 64 MiB).
	MaxBodyBytes int64
	// MaxInFlight bounds concurrent API requests; over it: 429 at once
	// (default 256).
	MaxInFlight int
	// Registry serves /metrics and receives the HTTP metrics; nil means a
	// private registry.
	Registry *prometheus.Registry
	Logger   *slog.Logger
	// Now is the clock for "created" fields (nil: time.Now).
	Now func() time.Time
	// Heavy, when set, runs CPU-heavy work (parsing bodies of 64 KiB and
	// more) off the latency-sensitive threads (see package cpupool).
	Heavy func(ctx context.Context, f func()) error
	// APIKeys, when not empty, are the keys accepted in
	// `Authorization: Bearer <key>` on every /v1/ route (401 otherwise).
	// /health and /health/ready never need one.
	APIKeys []string
	// MetricsAuth makes /metrics require an API key too.
	MetricsAuth bool
}

// Server is the HTTP handler.
type Server struct {
	opts     Options
	mux      *http.ServeMux
	inflight chan struct{}
	metrics  *httpMetrics
	log      *slog.Logger
	keys     *keyring
	draining atomic.Bool
	bodies   bodyPool
}

// Drain marks the server as shutting down. Requests whose context ends
// from then on were cut by the shutdown, not by their client: they get a
// 503 (or, once streaming, an error event and [DONE]) instead of nothing.
func (s *Server) Drain() { s.draining.Store(true) }

// cutByShutdown reports whether r ended because the server is shutting
// down.
func (s *Server) cutByShutdown(r *http.Request) bool {
	return s.draining.Load() && r.Context().Err() != nil
}

// errShuttingDown is the error for requests cut by a shutdown.
func errShuttingDown() *apierr.Error {
	return apierr.New(http.StatusServiceUnavailable, "unavailable", "shutting_down", "the server is shutting down; the request was cut", "")
}

// New builds the routes.
func New(o Options) (*Server, error) {
	if o.Backend == nil {
		return nil, errors.New("server: a Backend is required")
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 64 << 20
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 256
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	m, err := newHTTPMetrics(o.Registry)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, mux: http.NewServeMux(), inflight: make(chan struct{}, o.MaxInFlight), metrics: m, log: o.Logger, keys: newKeyring(o.APIKeys)}
	s.mux.Handle("POST /v1/chat/completions", s.api("/v1/chat/completions", s.chatCompletions))
	s.mux.Handle("POST /v1/completions", s.api("/v1/completions", s.completions))
	s.mux.Handle("GET /v1/models", s.api("/v1/models", s.models))
	s.routeRender()
	s.mux.Handle("GET /health", s.plain("/health", s.health))
	s.mux.Handle("GET /health/ready", s.plain("/health/ready", s.ready))
	metricsHandler := promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{})
	if o.MetricsAuth && s.keys.enabled() {
		s.mux.Handle("GET /metrics", s.wrap("/metrics", routeAuth, metricsHandler.ServeHTTP))
	} else {
		s.mux.Handle("GET /metrics", metricsHandler)
	}
	s.mux.Handle("/", s.wrap("other", routeAuthV1, func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest, "not_found", "no route for "+r.Method+" "+r.URL.Path, ""))
	}))
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) now() time.Time { return s.opts.Now() }

// record is what the access log and metrics learn about one request.
type record struct {
	id         string
	route      string
	start      time.Time
	firstToken time.Time
	status     int
	model      string
	stream     bool
	gen        openai.Generation
	errMsg     string
	// body is the pooled buffer holding the request body, given back
	// once the request is logged.
	body *bodyBuf
}

type recordKey struct{}

func recordOf(r *http.Request) *record {
	rec, _ := r.Context().Value(recordKey{}).(*record)
	return rec
}

// requestID is the request's id: X-Request-Id when the client sent a sane
// one, else a fresh random id.
func requestID(r *http.Request) string {
	if rec := recordOf(r); rec != nil {
		return rec.id
	}
	return newID()
}

func newID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func saneID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// statusWriter remembers the status code.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// routeFlags say what wrap enforces on a route.
type routeFlags int

const (
	routeLimited routeFlags = 1 << iota // subject to the in-flight limit
	routeAuth                           // needs an API key when keys are configured
	routeAuthV1                         // needs one when the path is under /v1/
)

// api wraps an API route: request id, API key, the in-flight limit (429 at
// once), metrics and the access log.
func (s *Server) api(route string, h http.HandlerFunc) http.Handler {
	return s.wrap(route, routeLimited|routeAuth, h)
}

// plain wraps a route that needs no key and is not subject to the in-flight
// limit.
func (s *Server) plain(route string, h http.HandlerFunc) http.Handler {
	return s.wrap(route, 0, h)
}

func (s *Server) wrap(route string, flags routeFlags, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &record{id: r.Header.Get("X-Request-Id"), route: route, start: time.Now()}
		if !saneID(rec.id) {
			rec.id = newID()
		}
		w.Header().Set("X-Request-Id", rec.id)
		sw := &statusWriter{ResponseWriter: w}
		ctx := context.WithValue(r.Context(), recordKey{}, rec)
		ctx = reqlog.With(ctx, s.log.With("request_id", rec.id))
		r = r.WithContext(ctx)
		if flags&routeAuth != 0 || flags&routeAuthV1 != 0 && strings.HasPrefix(r.URL.Path, "/v1/") {
			if !s.authorized(sw, r) {
				s.finish(rec, sw)
				return
			}
		}
		if flags&routeLimited != 0 {
			select {
			case s.inflight <- struct{}{}:
				defer func() { <-s.inflight }()
			default:
				s.writeError(sw, r, apierr.From(apierr.ErrOverloaded))
				s.finish(rec, sw)
				return
			}
		}
		h(sw, r)
		s.finish(rec, sw)
		// The lifetime rule (package doc): the handler has returned, the
		// request is logged, nothing made from the body is in use.
		s.bodies.put(rec.body)
	})
}

// finish records metrics and writes the access-log line.
func (s *Server) finish(rec *record, sw *statusWriter) {
	rec.status = sw.status
	if rec.status == 0 {
		rec.status = 499 // the handler wrote nothing: the client went away
	}
	d := time.Since(rec.start)
	code := strconv.Itoa(rec.status)
	s.metrics.requests.WithLabelValues(rec.route, code).Inc()
	s.metrics.latency.WithLabelValues(rec.route, code).Observe(d.Seconds())
	if rec.route == "/health" || rec.route == "/health/ready" || rec.route == "/metrics" && rec.status == http.StatusOK {
		return
	}
	attrs := []any{"request_id", rec.id, "route", rec.route, "status", rec.status, "duration_ms", ms(d)}
	if rec.model != "" {
		attrs = append(attrs, "model", rec.model, "stream", rec.stream)
	}
	if !rec.firstToken.IsZero() {
		attrs = append(attrs, "ttft_ms", ms(rec.firstToken.Sub(rec.start)))
	}
	if rec.gen != nil {
		attrs = append(attrs, "prompt_tokens", rec.gen.PromptTokens())
		if t, ok := rec.gen.(timed); ok {
			for k, v := range t.Timings() {
				attrs = append(attrs, k+"_ms", ms(v))
			}
		}
	}
	if rec.errMsg != "" {
		attrs = append(attrs, "error", rec.errMsg)
	}
	s.log.Info("access", attrs...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeError writes the OpenAI error JSON with its status.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, e *apierr.Error) {
	if s.cutByShutdown(r) {
		e = errShuttingDown()
	}
	if rec := recordOf(r); rec != nil {
		rec.errMsg = e.Message
	}
	status := e.Status
	if status == 499 {
		// The client is gone; nothing will read this.
		status = http.StatusBadRequest
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	writeJSON(w, status, e.Body())
}

func itoa(n int) string { return strconv.Itoa(n) }
