package server

import (
	"context"
	"log"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/internal/limits"
)

// This file answers: what does a connection get before a request exists?
// A bound on open connections (at it, new ones wait in the kernel's
// backlog), a bounded socket send buffer (what a client that stops reading
// can swallow before the stall timeout counts), a time limit and a size
// limit for the request headers, and an idle timeout between requests.

// HTTPServer is the http.Server for s, with the header timeout and size
// limit and the idle timeout of Options. h is its handler (nil: s itself;
// else a wrapper of s); base, when set, is the context every request's
// derives from; errorLog takes net/http's own messages.
func (s *Server) HTTPServer(h http.Handler, base context.Context, errorLog *log.Logger) *http.Server {
	if h == nil {
		h = s
	}
	hs := &http.Server{
		Handler: h, ReadHeaderTimeout: s.opts.HeaderTimeout, MaxHeaderBytes: s.opts.MaxHeaderBytes,
		IdleTimeout: s.opts.IdleTimeout, ErrorLog: errorLog,
	}
	if base != nil {
		hs.BaseContext = func(net.Listener) context.Context { return base }
	}
	return hs
}

// Listener bounds l's open connections at Options.MaxConnections (a
// negative MaxConnections: no bound), sets their send buffers and exports
// their count. Call it once per Server.
func (s *Server) Listener(l net.Listener) (net.Listener, error) {
	ll := limits.NewListener(l, limits.ListenerOptions{MaxOpen: s.opts.MaxConnections, SendBuffer: s.opts.SendBuffer})
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mmgate_http_open_connections", Help: "HTTP connections open."},
			func() float64 { return float64(ll.Open()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mmgate_http_connection_limit_waits_total",
			Help: "Times a new connection waited because --max-connections were open."},
			func() float64 { return float64(ll.Waits()) }),
	} {
		if err := s.opts.Registry.Register(c); err != nil {
			return nil, err
		}
	}
	return ll, nil
}
