package benchgw

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults used when an Options field is zero.
const (
	DefaultConcurrency    = 8
	DefaultRequests       = 200
	DefaultDuration       = 5 * time.Minute
	DefaultModel          = "qwen3-vl"
	DefaultMaxTokens      = 128
	DefaultText           = "Describe this image."
	DefaultProbeText      = "Say hello."
	DefaultProbeInterval  = 100 * time.Millisecond
	DefaultRequestTimeout = 2 * time.Minute
)

// Errors returned by New and LoadImages, wrapped as "op: %w".
var (
	// ErrInvalid: an option or argument has a bad value.
	ErrInvalid = errors.New("invalid option")
	// ErrNotLoopback: the URL is not on this host and AllowRemote is false.
	ErrNotLoopback = errors.New("not a loopback address")
	// ErrNoImages: the image directory holds no image file.
	ErrNoImages = errors.New("no image files")
)

// Options configures a Runner. The zero value of each field means its
// documented default.
type Options struct {
	// URL is the gateway's base URL: http://HOST:PORT (a path prefix is
	// kept) or unix:///path/to/socket. Required.
	URL string
	// Images are the pictures to send (see LoadImages). Required.
	Images []Image
	// Concurrency is the number of image requests in flight (default 8).
	Concurrency int
	// Requests is the number of image requests (default 200).
	Requests int
	// Duration caps the run: no request starts after it (default 5m).
	Duration time.Duration
	// Model is the request's model name (default "qwen3-vl").
	Model string
	// MaxTokens is the request's max_tokens (default 128).
	MaxTokens int
	// Text is the text part sent after each image (default "Describe this image.").
	Text string
	// ProbeText is the text-only probe's message (default "Say hello.").
	ProbeText string
	// NoProbe disables the text-only probe stream.
	NoProbe bool
	// NoWarmUp skips the unmeasured warm-up requests (see warmup.go).
	NoWarmUp bool
	// ProbeProcess, when set, is the command line of a process that sends
	// the text probes (one that runs ServeProbe, e.g. `mmgate bench probe`):
	// a text-only client of its own, as it would be in use, rather than a
	// goroutine of the load generator (see probeproc.go).
	ProbeProcess []string
	// ProbeInterval paces the probe: one text request starts every
	// interval (or when the previous one ends, if later), a steady light
	// text load beside the images. Zero means DefaultProbeInterval; a
	// negative value sends probes back to back.
	ProbeInterval time.Duration
	// AllowRemote lets URL name a host that is not loopback.
	AllowRemote bool
	// RequestTimeout bounds each request (default 2m).
	RequestTimeout time.Duration
	// APIKey, when set, is sent as "Authorization: Bearer KEY".
	APIKey string
	// Client overrides the HTTP client (tests); nil builds one sized to
	// Concurrency.
	Client *http.Client
	// Progress receives a line every few seconds while running; nil discards.
	Progress io.Writer
}

func (o *Options) setDefaults() {
	o.ProbeInterval = cmp.Or(o.ProbeInterval, DefaultProbeInterval)
	o.Concurrency = cmp.Or(o.Concurrency, DefaultConcurrency)
	o.Requests = cmp.Or(o.Requests, DefaultRequests)
	o.Duration = cmp.Or(o.Duration, DefaultDuration)
	o.Model = cmp.Or(o.Model, DefaultModel)
	o.MaxTokens = cmp.Or(o.MaxTokens, DefaultMaxTokens)
	o.Text = cmp.Or(o.Text, DefaultText)
	o.ProbeText = cmp.Or(o.ProbeText, DefaultProbeText)
	o.RequestTimeout = cmp.Or(o.RequestTimeout, DefaultRequestTimeout)
	if o.Progress == nil {
		o.Progress = io.Discard
	}
}

func (o *Options) validate() error {
	switch {
	case o.Concurrency < 0:
		return fmt.Errorf("concurrency %d: %w", o.Concurrency, ErrInvalid)
	case o.Requests < 0:
		return fmt.Errorf("requests %d: %w", o.Requests, ErrInvalid)
	case o.Duration < 0:
		return fmt.Errorf("duration %s: %w", o.Duration, ErrInvalid)
	case o.MaxTokens < 0:
		return fmt.Errorf("max tokens %d: %w", o.MaxTokens, ErrInvalid)
	case o.RequestTimeout < 0:
		return fmt.Errorf("request timeout %s: %w", o.RequestTimeout, ErrInvalid)
	case len(o.Images) == 0:
		return ErrNoImages
	}
	return nil
}

// endpoint is a parsed gateway address.
type endpoint struct {
	base   string // "http://host:port/prefix" without a trailing slash
	socket string // unix socket path, or ""
}

// parseEndpoint checks raw and says where to send requests. Only loopback
// hosts are accepted unless allowRemote.
func parseEndpoint(raw string, allowRemote bool) (endpoint, error) {
	if raw == "" {
		return endpoint{}, fmt.Errorf("url: empty: %w", ErrInvalid)
	}
	if p, ok := strings.CutPrefix(raw, "unix://"); ok {
		if p == "" || !strings.HasPrefix(p, "/") {
			return endpoint{}, fmt.Errorf("url %q: want unix:///absolute/path: %w", raw, ErrInvalid)
		}
		return endpoint{base: "http://unix", socket: p}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return endpoint{}, fmt.Errorf("url %q: %v: %w", raw, err, ErrInvalid)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return endpoint{}, fmt.Errorf("url %q: scheme must be http, https or unix: %w", raw, ErrInvalid)
	}
	if u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return endpoint{}, fmt.Errorf("url %q: want scheme://host:port[/prefix]: %w", raw, ErrInvalid)
	}
	if !allowRemote && !isLoopbackHost(u.Hostname()) {
		return endpoint{}, fmt.Errorf("url %q: host %q (pass --allow-remote to load another host): %w", raw, u.Hostname(), ErrNotLoopback)
	}
	return endpoint{base: strings.TrimRight(u.Scheme+"://"+u.Host+u.Path, "/")}, nil
}

// isLoopbackHost accepts literal loopback addresses and the name localhost;
// other names are refused without resolving them.
func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
