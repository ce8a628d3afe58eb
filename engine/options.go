package engine

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// Defaults for Options and WorkerConfig.
const (
	DefaultHealthInterval = 5 * time.Second
	DefaultHealthTimeout  = 2 * time.Second
	DefaultAbortTimeout   = 2 * time.Second
	DefaultShmMinBytes    = shm.DefaultMinBytes
	DefaultMaxMessageSize = 256 << 20
	// inlineMargin is kept free in a message for everything but the largest
	// inline tensor (prompt ids, side tensors, framing): MaxInline is the
	// message size minus max(1/16 of it, 64 KiB).
	minInlineMargin = 64 << 10
	// Tokenizer bundle caps.
	DefaultMaxBundleBytes = 256 << 20 // zip bytes received
	maxBundleFiles        = 256
	maxBundleUnpacked     = 1 << 30 // total bytes written
)

// Policies for Options.Policy.
const (
	PolicyLeastLoaded    = "least_loaded"
	PolicyRoundRobin     = "round_robin"
	PolicyCacheAware     = "cache_aware"
	PolicyPowerOfTwo     = "power_of_two"
	PolicyConsistentHash = "consistent_hash"
)

// Policies lists the policies, the default first.
func Policies() []string {
	return []string{PolicyLeastLoaded, PolicyRoundRobin, PolicyCacheAware, PolicyPowerOfTwo, PolicyConsistentHash}
}

// CacheAwareOptions tune the cache_aware policy (SMG's semantics; see the
// package documentation). The zero value of each field means its default;
// a negative value means zero (e.g. -1 for a threshold of 0).
type CacheAwareOptions struct {
	// Threshold is the fraction of a prompt's tokens a worker's recorded
	// prefixes must match (strictly more) to win. Default 0.5.
	Threshold float64
	// BalanceAbs and BalanceRel: the workers are imbalanced, and the least
	// loaded wins whatever the matches, when the most loaded has more than
	// BalanceAbs requests above the least loaded and more than BalanceRel
	// times its load. Defaults 32 and 1.1.
	BalanceAbs int
	BalanceRel float64
	// MaxTreeTokens bounds the prompt tokens recorded per worker and model
	// (least recently used prefixes go first). Default 262144.
	MaxTreeTokens int
	// MaxTreeAge drops what a worker has not been sent for this long.
	// Default 10 min.
	MaxTreeAge time.Duration
}

// WorkerConfig describes one worker. The zero value of every field but URL
// means its default.
type WorkerConfig struct {
	// URL is grpc://HOST:PORT, grpcs://HOST:PORT or unix:///path (see
	// ParseWorkerURL).
	URL string
	// TLS configures grpcs:// connections (trust roots in RootCAs, a
	// client certificate for mutual TLS, ServerName). nil means the system
	// roots and the URL's host as the server name. It is ignored for
	// grpc:// and unix:// URLs. TLS 1.2 is the minimum either way.
	TLS *tls.Config
	// Transport chooses how tensors travel: auto (default: shared memory
	// when the worker shares the gateway's /dev/shm), inline or shm.
	Transport shm.Mode
	// ShmMinBytes: tensors below this stay inline. 0 means 65536; a
	// negative value means no threshold.
	ShmMinBytes int
	// EncoderDType overrides the dtype of encoder inputs sent to this
	// worker ("float32", "bfloat16" or "float16"; it must be one its
	// protocol accepts). Default: the worker's encoder dtype
	// (protocol.Info.EncoderDType) when its protocol accepts it, else
	// float32.
	EncoderDType string
	// MaxMessageSize is the gRPC message limit both ways. 0 means 256 MiB.
	MaxMessageSize int
	// Runtime forces the worker's protocol by name (a Protocol.Name of
	// Options.Protocols, e.g. "tokenspeed"). Empty: the engine detects it,
	// trying Options.Protocols in order.
	Runtime string
	// Model is the served model name requests reach this worker by;
	// empty: the name the worker reports.
	Model string
}

// Options configure an Engine. The zero value of every field but Protocols
// and Workers means its default.
type Options struct {
	// Protocols are the engine protocols workers may speak, in detection
	// order (engine/builtin.Protocols is the built-in list). Required.
	Protocols []protocol.Protocol
	// Workers are the workers known at start (there may be none); Add and
	// Remove change the set later.
	Workers []WorkerConfig
	// Models are served model names the engine answers for before any
	// worker reports them: a request for one of them while no worker serves
	// it fails with ErrNoWorker, not ErrModelNotFound. Names reported by
	// workers are remembered the same way once seen.
	Models []string
	// Policy is the worker selection: "least_loaded" (default),
	// "round_robin", "cache_aware", "power_of_two" or "consistent_hash"
	// (Policies).
	Policy string
	// CacheAware tunes the cache_aware policy.
	CacheAware CacheAwareOptions
	// HealthInterval is the period of each worker's health check. Default
	// 5 s.
	HealthInterval time.Duration
	// HealthTimeout bounds each health, info and loads call. Default 2 s.
	HealthTimeout time.Duration
	// AbortTimeout bounds the Abort call sent when a caller gives up on a
	// stream. Default 2 s.
	AbortTimeout time.Duration
	// StallTimeout, when positive, bounds the wait for each message of a
	// Generate stream (the first response, then every next one): a worker
	// silent for longer is aborted and the call fails with ErrTimeout. Zero
	// means no limit (a hung worker then holds the request until the caller
	// gives up).
	StallTimeout time.Duration
	// MaxBundleBytes caps the tokenizer bundle received by FetchBundle.
	// Default 256 MiB.
	MaxBundleBytes int
	// Pool is the gateway's shared-memory pool; nil sends every tensor
	// inline.
	Pool *shm.Pool
	// Registerer receives the metrics; nil registers nothing.
	Registerer prometheus.Registerer
	// Logger receives worker state changes; nil discards.
	Logger *slog.Logger
	// DialOptions are appended to the engine's own (tests use them for
	// custom dialers).
	DialOptions []grpc.DialOption
}

// workerSettings is a validated WorkerConfig.
type workerSettings struct {
	url       string
	target    string
	mode      shm.Mode
	minBytes  int
	encDT     tensor.DType // 0: from the worker's info
	maxMsg    int
	maxInline int
	tls       *tls.Config // nil: plaintext
	runtime   string      // "": detect
	model     string      // "": the worker's served name
}

func (c WorkerConfig) settings() (workerSettings, error) {
	target, err := ParseWorkerURL(c.URL)
	if err != nil {
		return workerSettings{}, err
	}
	s := workerSettings{url: c.URL, target: target, mode: c.Transport, minBytes: c.ShmMinBytes, maxMsg: c.MaxMessageSize, runtime: c.Runtime, model: c.Model}
	if IsTLSURL(c.URL) {
		if c.TLS != nil {
			s.tls = c.TLS.Clone()
		} else {
			s.tls = &tls.Config{}
		}
		if s.tls.MinVersion < tls.VersionTLS12 {
			s.tls.MinVersion = tls.VersionTLS12
		}
	}
	switch c.Transport {
	case shm.ModeAuto, shm.ModeInline, shm.ModeShm:
	default:
		return s, fmt.Errorf("engine: worker %s: transport %v: %w", c.URL, c.Transport, ErrBadOptions)
	}
	if s.minBytes == 0 {
		s.minBytes = DefaultShmMinBytes
	}
	if s.maxMsg == 0 {
		s.maxMsg = DefaultMaxMessageSize
	}
	if s.maxMsg < 1<<20 {
		return s, fmt.Errorf("engine: worker %s: max message size %d (want at least 1 MiB): %w", c.URL, c.MaxMessageSize, ErrBadOptions)
	}
	s.maxInline = s.maxMsg - max(s.maxMsg/16, minInlineMargin)
	if c.EncoderDType != "" {
		dt, err := tensor.ParseDType(c.EncoderDType)
		if err != nil || !dt.IsFloat() {
			return s, fmt.Errorf("engine: worker %s: encoder dtype %q (want float32, bfloat16 or float16): %w", c.URL, c.EncoderDType, ErrBadOptions)
		}
		s.encDT = dt
	}
	return s, nil
}
