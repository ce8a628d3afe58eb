package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/internal/limits"
	"github.com/mmgate/mmgate/internal/reqlog"
	"github.com/mmgate/mmgate/internal/routing"
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
	// SessionHeader, when set, names the request header whose value is the
	// request's session key for routing (routing.WithSessionKey).
	SessionHeader string

	// Slow, hostile and greedy clients. Each zero value means the default
	// given; a negative duration or size turns its limit off.

	// BodyReadTimeout cuts a request body that sends no byte for this
	// long: 408 and the connection closed (default 30 s).
	BodyReadTimeout time.Duration
	// BodyMinRate (bytes per second) and BodyRateGrace cut a body that
	// arrives slower: BodyRateGrace after it began, at least BodyMinRate
	// bytes per second since then must have come (defaults 8 KiB/s and
	// 10 s; limits.Pace), so the 64 MiB default body sent at the minimum
	// rate passes.
	BodyMinRate   int64
	BodyRateGrace time.Duration
	// MaxUploads bounds the requests whose bodies are being received or
	// wait for a processing slot (default 1024), MaxUploadBytes the memory
	// their buffers hold (default 1 GiB); over either, 429 at once.
	MaxUploads     int
	MaxUploadBytes int64
	// QueueTimeout is how long a request whose body is in waits for a
	// processing slot when all MaxInFlight are taken: 503 queue_timeout
	// after it. 0 (the default): no queue, 429 at once.
	QueueTimeout time.Duration
	// ClientStallTimeout ends a response the client takes nothing of for
	// this long: the connection is closed, the request's context ends (the
	// generation is aborted at its worker) and its slot is freed (default
	// 60 s).
	ClientStallTimeout time.Duration
	// Clients are per-client limits (default none), counted per API key
	// when keys are configured and per client address otherwise.
	Clients limits.ClientOptions
	// TrustedProxies are the peers whose X-Forwarded-For names the client
	// (limits.ClientAddr).
	TrustedProxies []netip.Prefix

	// Connections (HTTPServer and Listener): MaxConnections open at once
	// (default 10,000), HeaderTimeout to read a request's headers (default
	// 10 s), MaxHeaderBytes (default 64 KiB), IdleTimeout of a keep-alive
	// connection between requests (default 2 min), SendBuffer of each
	// connection's socket (default 256 KiB; negative: the kernel's
	// autotuning, megabytes; limits.ListenerOptions).
	MaxConnections int
	HeaderTimeout  time.Duration
	MaxHeaderBytes int
	IdleTimeout    time.Duration
	SendBuffer     int
}

// The defaults of Options.
const (
	DefaultBodyReadTimeout    = 30 * time.Second
	DefaultBodyMinRate        = 8 << 10
	DefaultBodyRateGrace      = 10 * time.Second
	DefaultMaxUploads         = 1024
	DefaultMaxUploadBytes     = 1 << 30
	DefaultClientStallTimeout = 60 * time.Second
	DefaultMaxConnections     = 10_000
	DefaultHeaderTimeout      = 10 * time.Second
	DefaultMaxHeaderBytes     = 64 << 10
	DefaultIdleTimeout        = 2 * time.Minute
	DefaultSendBuffer         = 256 << 10
)

// Server is the HTTP handler.
type Server struct {
	opts     Options
	mux      *http.ServeMux
	adm      *admission
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
	o.applyLimitDefaults()
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	adm, err := newAdmission(&o)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	m, err := newHTTPMetrics(o.Registry, adm)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, mux: http.NewServeMux(), adm: adm, metrics: m, log: o.Logger, keys: newKeyring(o.APIKeys)}
	s.mux.Handle("POST /v1/chat/completions", s.api("/v1/chat/completions", s.chatCompletions))
	s.mux.Handle("POST /v1/completions", s.api("/v1/completions", s.completions))
	s.mux.Handle("GET /v1/models", s.api("/v1/models", s.models))
	s.routeRender()
	s.mux.Handle("GET /health", s.plain("/health", s.health))
	s.mux.Handle("GET /health/ready", s.plain("/health/ready", s.ready))
	metricsHandler := promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{})
	metricsFlags := routeFlags(0)
	if o.MetricsAuth && s.keys.enabled() {
		metricsFlags = routeAuth
	}
	s.mux.Handle("GET /metrics", s.wrap("/metrics", metricsFlags, metricsHandler.ServeHTTP))
	s.mux.Handle("/", s.wrap("other", routeAuthV1, func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, apierr.New(http.StatusNotFound, apierr.TypeInvalidRequest, "not_found", "no route for "+r.Method+" "+r.URL.Path, ""))
	}))
	return s, nil
}

// applyLimitDefaults fills the zero limits with their defaults and turns
// the negative ones into "none" (zero) for package limits.
func (o *Options) applyLimitDefaults() {
	dur := func(v *time.Duration, def time.Duration) {
		switch {
		case *v == 0:
			*v = def
		case *v < 0:
			*v = 0
		}
	}
	dur(&o.BodyReadTimeout, DefaultBodyReadTimeout)
	dur(&o.BodyRateGrace, DefaultBodyRateGrace)
	dur(&o.ClientStallTimeout, DefaultClientStallTimeout)
	dur(&o.HeaderTimeout, DefaultHeaderTimeout)
	dur(&o.IdleTimeout, DefaultIdleTimeout)
	if o.QueueTimeout < 0 {
		o.QueueTimeout = 0
	}
	switch {
	case o.BodyMinRate == 0:
		o.BodyMinRate = DefaultBodyMinRate
	case o.BodyMinRate < 0:
		o.BodyMinRate = 0
	}
	if o.MaxUploads <= 0 {
		o.MaxUploads = DefaultMaxUploads
	}
	if o.MaxUploadBytes <= 0 {
		o.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if o.MaxConnections == 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.SendBuffer == 0 {
		o.SendBuffer = DefaultSendBuffer
	}
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
	// rc controls the request's connection (read and write deadlines).
	rc *http.ResponseController
	// client is the client's address (limits.ClientAddr); clientKey what
	// per-client limits count it under (its API key or address).
	client, clientKey string
	// admitted: counted by the per-client limits; slot: holds a
	// processing slot; cut: the reason a limit cut the request.
	admitted, slot bool
	cut            string
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

// wrap runs h with what every route gets: a request id, the write
// deadline of a stalled client, and the record for metrics and the access
// log; by flags, the API key and the limits.
func (s *Server) wrap(route string, flags routeFlags, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &record{id: r.Header.Get("X-Request-Id"), route: route, start: time.Now()}
		if !saneID(rec.id) {
			rec.id = newID()
		}
		w.Header().Set("X-Request-Id", rec.id)
		sw := newStatusWriter(w, s.adm.stall)
		rec.rc = sw.rc
		rec.client = limits.ClientAddr(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), s.opts.TrustedProxies)
		if r.ContentLength != 0 {
			// Until a handler reads the body under the pace rule, the
			// rule's first deadline bounds whatever reads it (net/http
			// drains an unread body after the handler).
			rec.rc.SetReadDeadline(s.adm.pace.Deadline(rec.start, rec.start, 0))
		}
		ctx := context.WithValue(r.Context(), recordKey{}, rec)
		ctx = reqlog.With(ctx, s.log.With("request_id", rec.id))
		if s.opts.SessionHeader != "" {
			ctx = routing.WithSessionKey(ctx, r.Header.Get(s.opts.SessionHeader))
		}
		r = r.WithContext(ctx)
		defer s.release(rec)
		if s.admit(sw, r, rec, flags) {
			h(sw, r)
			if sw.stalled() {
				s.metrics.refused.WithLabelValues(limits.ReasonClientStall).Inc()
				s.logCut(r, limits.ReasonClientStall, fmt.Sprintf("the client took nothing of the response for %v, %d bytes into it", s.adm.stall, sw.written))
			}
		}
		s.finish(rec, sw)
		// The lifetime rule (package doc): the handler has returned, the
		// request is logged, nothing made from the body is in use.
		s.bodies.put(rec.body)
	})
}

// admit applies the route's API key and limits before its handler;
// false means the request was answered.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, rec *record, flags routeFlags) bool {
	if flags&routeAuth != 0 || flags&routeAuthV1 != 0 && strings.HasPrefix(r.URL.Path, "/v1/") {
		key, ok := s.authorized(w, r)
		if !ok {
			closeUnread(w, r)
			return false
		}
		rec.clientKey = key
	}
	if flags&routeLimited == 0 {
		return true
	}
	if rec.clientKey == "" {
		rec.clientKey = limits.ClientKey(rec.client)
	}
	err := s.admitClient(rec)
	if err == nil && r.ContentLength == 0 {
		// No body to wait for: the slot now. (A body's request takes it
		// once the body is in, readBody.)
		err = s.takeSlot(r.Context(), rec)
	}
	if err != nil {
		s.writeError(w, r, s.refusal(w, r, err, true))
		return false
	}
	return true
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
	attrs := []any{"request_id", rec.id, "route", rec.route, "status", rec.status, "duration_ms", ms(d), "client", rec.client}
	if rec.cut != "" {
		attrs = append(attrs, "cut", rec.cut)
	}
	if rec.model != "" {
		attrs = append(attrs, "model", rec.model, "stream", rec.stream)
	}
	if !rec.firstToken.IsZero() {
		attrs = append(attrs, "ttft_ms", ms(rec.firstToken.Sub(rec.start)))
	}
	if rec.gen != nil {
		if w, ok := rec.gen.(served); ok {
			attrs = append(attrs, "worker", w.Worker())
		}
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
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((e.RetryAfter+time.Second-1)/time.Second), 10))
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
