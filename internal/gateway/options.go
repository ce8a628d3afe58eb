package gateway

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net/netip"
	"strconv"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: what can be set? Each field's `log` tag is its key in
// the effective-configuration log, the command line's config key.

// Options configure Run. The groups are the parts the gateway builds.
type Options struct {
	// Listen is HOST:PORT or unix:///path (default 127.0.0.1:8080).
	Listen string `log:"listen"`
	// TLS, when set, serves HTTPS on Listen.
	TLS *tls.Config `log:"-"`
	// ShutdownTimeout is how long in-flight requests may finish once the
	// context ends (0: they are cut at once).
	ShutdownTimeout time.Duration `log:"shutdown_timeout"`
	// Model is the model folder (tokenizer, chat template, processor
	// configs); empty: fetched from the worker, or the demo model with the
	// embedded worker.
	Model string `log:"model"`
	// ServedModelNames are the names served before a worker reports them
	// (default: the model folder's name); with RenderOnly the names render
	// answers to (default: Model as given).
	ServedModelNames []string `log:"served_model_names"`
	// RenderOnly serves the render API for Model with no worker.
	RenderOnly bool `log:"render_only"`
	// MaxModelLen, with RenderOnly, is the context length render budgets
	// against (0: the model's own).
	MaxModelLen int `log:"max_model_len"`
	// MaxBodyBytes is the request body limit.
	MaxBodyBytes int64 `log:"max_body_bytes"`
	// MaxInFlight is how many API requests are processed at once.
	MaxInFlight int `log:"max_in_flight"`
	// APIKeys, when any, are required on /v1/ routes (logged as a count).
	APIKeys []string `log:"api_keys,count"`
	// MetricsAuth requires an API key on /metrics too.
	MetricsAuth bool `log:"metrics_auth"`
	// Limits are the HTTP server's limits against slow, hostile and greedy
	// clients (their semantics: server.Options); Run sets the other fields.
	Limits server.Options `log:"-"`

	Workers  WorkerOptions
	Embedded EmbeddedOptions
	Fleet    FleetOptions
	Media    MediaOptions
	Shm      ShmOptions
	Budget   BudgetOptions
	Heavy    HeavyOptions

	// Version is the gateway's version, in its user agent and log.
	Version string `log:"-"`
	// Logger receives the gateway's logs (default: slog.Default()).
	Logger *slog.Logger `log:"-"`
	// Ready, when set, is called once the listener is open, with the
	// effective configuration (Effective and what start-up resolved).
	Ready func(effective []slog.Attr) `log:"-"`
	// Example, when set, receives the first request to try on the demo
	// model, which the embedded worker serves when Model is empty.
	Example io.Writer `log:"-"`
}

// WorkerOptions are the static workers and what every worker shares.
type WorkerOptions struct {
	// URLs are the static workers, each with its own settings (Base
	// gives what they share).
	URLs []engine.WorkerConfig `log:"-"`
	// Transport is how tensors travel to workers.
	Transport shm.Mode `log:"mm_transport"`
	// ShmMinBytes: tensors below this stay inline.
	ShmMinBytes int64 `log:"mm_shm_min_bytes"`
	// MaxMessageSize is the gRPC message limit.
	MaxMessageSize int64 `log:"max_message_size"`
	// TLS configures grpcs:// workers (nil: the system roots).
	TLS *tls.Config `log:"-"`
	// HealthInterval is the health check period.
	HealthInterval time.Duration `log:"health_interval"`
	// StallTimeout aborts a request whose worker sends nothing for this
	// long (0: no limit).
	StallTimeout time.Duration `log:"worker_stall_timeout"`
}

// Base is what every worker shares, with no URL: the base of per-worker
// overrides.
func (w WorkerOptions) Base() engine.WorkerConfig {
	return engine.WorkerConfig{Transport: w.Transport, ShmMinBytes: int(w.ShmMinBytes), MaxMessageSize: int(w.MaxMessageSize), TLS: w.TLS}
}

// EmbeddedOptions start a reference worker inside this process, on a unix
// socket, sharing the shared-memory directory.
type EmbeddedOptions struct {
	Enabled bool `log:"embedded_worker"`
	// Protocol is the worker's gRPC protocol (default tokenspeed).
	Protocol string `log:"embedded_protocol"`
	// Fingerprint is its fingerprint of encoder inputs (default sha256).
	Fingerprint string `log:"embedded_fingerprint"`
	// KeepShm keeps the segments it reads and advertises it (TokenSpeed
	// only), so that the gateway refills the same segments.
	KeepShm bool `log:"embedded_keep_shm"`
}

// FleetOptions are where workers come from beyond the static ones, and
// which one takes a request.
type FleetOptions struct {
	// Discovery finds workers among Kubernetes pods.
	Discovery  bool     `log:"service_discovery"`
	Selectors  []string `log:"selectors"`
	Namespace  string   `log:"service_discovery_namespace"`
	Port       int      `log:"service_discovery_port"`
	Kubeconfig string   `log:"kubeconfig"`
	// Policy is the engine's selection policy (default least_loaded).
	Policy string `log:"policy"`
	// The cache_aware settings; a 0 is a zero, not the default.
	CacheThreshold      float64       `log:"cache_threshold"`
	BalanceAbsThreshold int           `log:"balance_abs_threshold"`
	BalanceRelThreshold float64       `log:"balance_rel_threshold"`
	MaxTreeSize         int           `log:"max_tree_size"`
	MaxTreeAge          time.Duration `log:"max_tree_age"`
	// SessionHeader holds consistent_hash's session key.
	SessionHeader string `log:"session_header"`
}

// MediaOptions are the media sources and decoders and what a request may
// carry.
type MediaOptions struct {
	MaxItems int               `log:"max_media_items"`
	Order    openai.MediaOrder `log:"media_order"`
	CPU      int               `log:"cpu"`
	// CacheBytes is the preprocessed-tensor cache budget (0: no cache).
	CacheBytes   int64         `log:"cache_bytes"`
	FetchTimeout time.Duration `log:"fetch_timeout"`
	FetchMax     int64         `log:"fetch_max_bytes"`
	// FetchRedirects is how many redirects a fetch follows (0: none).
	FetchRedirects int            `log:"fetch_max_redirects"`
	AllowHosts     []string       `log:"fetch_allow_hosts"`
	AllowCIDRs     []netip.Prefix `log:"fetch_allow_cidrs"`
	FileRoots      []string       `log:"file_roots"`
	MaxPixels      int            `log:"max_image_pixels"`
	Background     RGB            `log:"rgba_background"`
	NoEXIF         bool           `log:"no_exif"`
	VideoDuration  time.Duration  `log:"video_max_duration"`
	VideoFrames    int            `log:"video_max_frames"`
	VideoBytes     int64          `log:"video_max_bytes"`
}

// RGB is the background transparent images are composited on.
type RGB [3]uint8

// String is R,G,B, as the command line writes it.
func (c RGB) String() string {
	return strconv.Itoa(int(c[0])) + "," + strconv.Itoa(int(c[1])) + "," + strconv.Itoa(int(c[2]))
}

// ShmOptions are the shared-memory pool's.
type ShmOptions struct {
	Dir string `log:"shm_dir"`
	// Budget is the bytes in shared memory at once (0: half the tmpfs).
	Budget int64         `log:"shm_budget"`
	TTL    time.Duration `log:"shm_ttl"`
	Sweep  time.Duration `log:"shm_sweep_interval"`
	// ShareWithGroup lets group GID read segments (mode 0640).
	ShareWithGroup bool `log:"-"`
	GID            int  `log:"-"`
}

// BudgetOptions are the tensor memory budget's; its wait is
// Limits.QueueTimeout (admission.DefaultTimeout when 0).
type BudgetOptions struct {
	// Bytes is the budget (0: a share of the machine's memory).
	Bytes int64 `log:"max_tensor_bytes_in_flight"`
	// PerRequest is what one request may plan (0: the budget).
	PerRequest int64 `log:"max_request_tensor_bytes"`
}

// HeavyOptions are the low-priority threads media work runs on.
type HeavyOptions struct {
	// Nice is their nice value (1-19); 0 keeps the process priority;
	// negative: no such threads, media work runs on ordinary goroutines.
	Nice int `log:"heavy_nice"`
	// Idle runs them under SCHED_IDLE instead of a nice value.
	Idle bool `log:"heavy_idle"`
}
