package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mmgate/mmgate/engine"
	protocols "github.com/mmgate/mmgate/engine/builtin"
	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/shm"
)

// serveFlags are the gateway's settings (conventions.md lists the defaults).
type serveFlags struct {
	embeddedFlags
	admissionFlags
	limits          limitFlags
	listen          string
	model           string
	renderOnly      bool
	servedNames     stringList
	maxModelLen     int
	workers         stringList
	embedded        bool
	embeddedFP      string
	maxBody         byteSize
	maxItems        int
	maxInFlight     int
	cpu             int
	cacheBytes      byteSize
	fetchTimeout    time.Duration
	fetchMaxBytes   byteSize
	fetchRedirects  int
	allowHosts      stringList
	allowCIDRs      stringList
	fileRoots       stringList
	maxPixels       int
	background      string
	noEXIF          bool
	transport       string
	shmMinBytes     byteSize
	shmDir          string
	shmBudget       byteSize
	shmTTL          time.Duration
	shmSweep        time.Duration
	healthInterval  time.Duration
	maxMessageSize  byteSize
	mediaOrder      string
	policy          string
	shutdownTimeout time.Duration
	heavyNice       int
	heavyIdle       bool
	stallTimeout    time.Duration
	gcPercent       int
	videoDuration   time.Duration
	videoFrames     int
	videoBytes      byteSize
	config          string

	apiKeys       stringList
	apiKeyFile    string
	metricsAuth   bool
	tlsCert       string
	tlsKey        string
	workerTLSCA   string
	workerTLSCert string
	workerTLSKey  string
	workerTLSName string
	shmGroup      string
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	f.maxBody, f.cacheBytes, f.fetchMaxBytes = 64<<20, 512<<20, 32<<20
	f.shmMinBytes, f.maxMessageSize = 65536, 256<<20
	f.videoBytes = 256 << 20
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8080", "HTTP listen address: HOST:PORT or unix:///path")
	fs.StringVar(&f.model, "model", "", "model folder (tokenizer, chat template, processor configs); default: fetched from the worker, or the demo model with --embedded-worker")
	fs.BoolVar(&f.renderOnly, "render-only", false, "serve the render API (vLLM's /v1/chat/completions/render, /v1/completions/render, /tokenize, /detokenize) for the --model folder with no worker; generation routes answer 503")
	fs.Var(&f.servedNames, "served-model-name", "with --render-only: the model `NAME` requests give (repeatable; default: --model as given)")
	fs.IntVar(&f.maxModelLen, "max-model-len", 0, "with --render-only: the context length render budgets against, as vLLM's --max-model-len (0: the model's own)")
	fs.Var(&f.workers, "worker", "worker URL, grpc://HOST:PORT, grpcs://HOST:PORT (TLS) or unix:///path (repeatable)")
	fs.BoolVar(&f.embedded, "embedded-worker", false, "start a reference worker inside this process (on a unix socket, sharing /dev/shm)")
	fs.StringVar(&f.embeddedFP, "embedded-fingerprint", "sha256", "the embedded worker's fingerprint of encoder inputs: sha256|crc32c")
	fs.Var(&f.maxBody, "max-body-bytes", "request body limit")
	fs.IntVar(&f.maxItems, "max-media-items", 16, "media items per request")
	fs.IntVar(&f.maxInFlight, "max-in-flight", 256, "API requests processed at once, counted once their body is in; over it: 429 at once, or a wait of --queue-timeout")
	fs.IntVar(&f.cpu, "cpu", 0, "CPU-heavy work in parallel (decode, resize, patchify); 0 means GOMAXPROCS")
	fs.Var(&f.cacheBytes, "cache-bytes", "preprocessed-tensor cache budget (0 disables)")
	fs.DurationVar(&f.fetchTimeout, "fetch-timeout", 10*time.Second, "media fetch timeout")
	fs.Var(&f.fetchMaxBytes, "fetch-max-bytes", "media size limit")
	fs.IntVar(&f.fetchRedirects, "fetch-max-redirects", 3, "media fetch redirects")
	fs.Var(&f.allowHosts, "fetch-allow-host", "host the fetch policy lets through even when it resolves to a private address (repeatable)")
	fs.Var(&f.allowCIDRs, "fetch-allow-cidr", "address range the fetch policy lets through (repeatable)")
	fs.Var(&f.fileRoots, "file-root", "directory file:// media URLs may read below (repeatable; none by default)")
	fs.IntVar(&f.maxPixels, "max-image-pixels", media.DefaultMaxPixels, "decoded image pixel cap, checked from the header before decoding")
	fs.StringVar(&f.background, "rgba-background", "255,255,255", "background R,G,B for transparent images")
	fs.BoolVar(&f.noEXIF, "no-exif", false, "do not apply EXIF orientation")
	fs.StringVar(&f.transport, "mm-transport", "auto", "tensor transport to workers: auto|inline|shm")
	fs.Var(&f.shmMinBytes, "mm-shm-min-bytes", "tensors below this stay inline")
	fs.StringVar(&f.shmDir, "shm-dir", shm.DefaultDir, "shared-memory directory")
	fs.Var(&f.shmBudget, "shm-budget", "bytes in shared memory at once (default: half the tmpfs)")
	fs.DurationVar(&f.shmTTL, "shm-ttl", 30*time.Second, "age after which an unread segment is removed")
	fs.DurationVar(&f.shmSweep, "shm-sweep-interval", 5*time.Second, "janitor period")
	fs.IntVar(&f.gcPercent, "gc-percent", 300, "Go garbage collector target (GOGC): image requests allocate tens of MB each, and collecting less often raises throughput (about 10% at 300 against Go's 100) for more memory; the GOGC environment variable, when set, wins")
	fs.DurationVar(&f.stallTimeout, "worker-stall-timeout", 5*time.Minute, "a worker that sends nothing for this long on a request is aborted and the request fails with 504 (0: no limit)")
	fs.DurationVar(&f.healthInterval, "health-interval", 5*time.Second, "worker health check period")
	fs.Var(&f.maxMessageSize, "max-message-size", "gRPC max message size")
	fs.StringVar(&f.mediaOrder, "media-order", "media_first", "media order inside a message: media_first|authored")
	fs.StringVar(&f.policy, "policy", "least_loaded", "worker selection: least_loaded|round_robin")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGTERM/SIGINT, how long in-flight requests may finish")
	fs.StringVar(&f.config, "config", "", "configuration file (YAML or JSON)")
	fs.DurationVar(&f.videoDuration, "video-max-duration", 10*time.Minute, "longest video accepted")
	fs.IntVar(&f.videoFrames, "video-max-frames", 768, "most frames sampled from one video")
	fs.Var(&f.videoBytes, "video-max-bytes", "largest video accepted")
	f.registerEmbedded(fs)
	f.admissionFlags.register(fs)
	f.limits.register(fs)
	fs.IntVar(&f.heavyNice, "heavy-nice", 10, "nice value (1-19) of the threads that decode and preprocess media when --heavy-idle=false; 0 keeps the process priority on those threads; -1 runs that work on ordinary goroutines (and --heavy-idle is ignored)")
	fs.BoolVar(&f.heavyIdle, "heavy-idle", true, "run the media threads under the kernel's SCHED_IDLE policy, so that text requests and token streaming preempt them at once; on a machine shared with other busy processes, false (a nice value) keeps media work from waiting on them")
	fs.Var(&f.apiKeys, "api-key", "API `KEY` clients must send as \"Authorization: Bearer KEY\" on /v1/ routes (repeatable)")
	fs.StringVar(&f.apiKeyFile, "api-key-file", "", "file of API keys, one per line (# comments allowed)")
	fs.BoolVar(&f.metricsAuth, "metrics-auth", false, "require an API key on /metrics too")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate (chain) for HTTPS on --listen")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM private key for --tls-cert")
	fs.StringVar(&f.workerTLSCA, "worker-tls-ca", "", "PEM trust roots for grpcs:// workers (default: the system roots)")
	fs.StringVar(&f.workerTLSCert, "worker-tls-cert", "", "PEM client certificate for grpcs:// workers (mutual TLS)")
	fs.StringVar(&f.workerTLSKey, "worker-tls-key", "", "PEM private key for --worker-tls-cert")
	fs.StringVar(&f.shmGroup, "shm-group", "", "group (name or GID) that may read shared-memory segments (mode 0640), for workers running as another user; default: owner only (0600)")
	fs.StringVar(&f.workerTLSName, "worker-tls-server-name", "", "server name to verify in grpcs:// workers' certificates (default: the URL's host)")
}

func runServe(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "serve", "serve [--listen HOST:PORT] [--model MODEL_DIR] [--worker URL]... [--embedded-worker] [--config FILE] [flags]")
	var f serveFlags
	f.register(fs)
	lf := addLogFlags(fs)
	rest, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(s.err, "mmgate serve: unexpected arguments %v\n", rest)
		return 2
	}
	log, err := lf.logger(s)
	if err != nil {
		fmt.Fprintln(s.err, "mmgate serve:", err)
		return 2
	}
	cfg, err := f.validate()
	if err != nil {
		fmt.Fprintln(s.err, "mmgate serve:", err)
		return 2
	}
	if err := serve(ctx, s, &f, cfg, log); err != nil {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
}

// serveConfig is the part of the configuration that needs parsing.
type serveConfig struct {
	background [3]uint8
	cidrs      []netip.Prefix
	mode       shm.Mode
	order      openai.MediaOrder
	workers    []engine.WorkerConfig
	apiKeys    []string
	httpTLS    *tls.Config    // nil: plain HTTP
	server     server.Options // the limits (limitFlags); serve adds the rest
	workerTLS  *tls.Config
	shmGID     int // -1: segments are owner-only
}

func (f *serveFlags) validate() (*serveConfig, error) {
	c := &serveConfig{}
	parts := strings.Split(f.background, ",")
	if len(parts) != 3 {
		return nil, fmt.Errorf("--rgba-background %q: want R,G,B", f.background)
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 8)
		if err != nil {
			return nil, fmt.Errorf("--rgba-background %q: %v", f.background, err)
		}
		c.background[i] = uint8(v)
	}
	for _, s := range f.allowCIDRs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("--fetch-allow-cidr: %v", err)
		}
		c.cidrs = append(c.cidrs, p)
	}
	var err error
	if c.mode, err = shm.ParseMode(f.transport); err != nil {
		return nil, fmt.Errorf("--mm-transport: %v", err)
	}
	switch f.mediaOrder {
	case "media_first":
		c.order = openai.MediaFirst
	case "authored":
		c.order = openai.Authored
	default:
		return nil, fmt.Errorf("--media-order %q: want media_first or authored", f.mediaOrder)
	}
	if f.policy != "least_loaded" && f.policy != "round_robin" {
		return nil, fmt.Errorf("--policy %q: want least_loaded or round_robin", f.policy)
	}
	if c.shmGID, err = lookupGroup(f.shmGroup); err != nil {
		return nil, err
	}
	if c.apiKeys, err = loadAPIKeys(f.apiKeys, f.apiKeyFile); err != nil {
		return nil, err
	}
	if f.metricsAuth && len(c.apiKeys) == 0 {
		return nil, errors.New("--metrics-auth needs --api-key or --api-key-file")
	}
	if err := f.limits.apply(&c.server); err != nil {
		return nil, err
	}
	if c.httpTLS, err = listenerTLS(f.tlsCert, f.tlsKey); err != nil {
		return nil, err
	}
	if c.workerTLS, err = workerTLS(f.workerTLSCA, f.workerTLSCert, f.workerTLSKey, f.workerTLSName); err != nil {
		return nil, err
	}
	for _, u := range f.workers {
		c.workers = append(c.workers, engine.WorkerConfig{URL: u, Transport: c.mode, ShmMinBytes: int(f.shmMinBytes), MaxMessageSize: int(f.maxMessageSize)})
	}
	if f.config != "" {
		ws, err := configWorkers(f.config, c, f)
		if err != nil {
			return nil, err
		}
		if len(f.workers) == 0 {
			c.workers = append(c.workers, ws...)
		}
	}
	if f.renderOnly {
		return c, f.checkRenderOnly()
	}
	if len(c.workers) == 0 && !f.embedded {
		return nil, errors.New("no worker: give --worker URL (repeatable) or --embedded-worker")
	}
	if err := f.embeddedFlags.validate(); err != nil {
		return nil, err
	}
	for i := range c.workers {
		c.workers[i].TLS = c.workerTLS
	}
	return c, nil
}

// configWorkers reads the config file's `workers:` list with per-worker
// overrides (url, mm_transport, mm_shm_min_bytes, encoder_dtype, runtime).
func configWorkers(path string, c *serveConfig, f *serveFlags) ([]engine.WorkerConfig, error) {
	doc, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	raw, ok := doc["workers"].([]any)
	if !ok {
		return nil, nil
	}
	var out []engine.WorkerConfig
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("config %s: workers[%d] is not an object", path, i)
		}
		w := engine.WorkerConfig{Transport: c.mode, ShmMinBytes: int(f.shmMinBytes), MaxMessageSize: int(f.maxMessageSize)}
		w.URL, _ = m["url"].(string)
		if w.URL == "" {
			return nil, fmt.Errorf("config %s: workers[%d] has no url", path, i)
		}
		if v, ok := m["mm_transport"].(string); ok {
			if w.Transport, err = shm.ParseMode(v); err != nil {
				return nil, fmt.Errorf("config %s: workers[%d].mm_transport: %v", path, i, err)
			}
		}
		if v, ok := m["mm_shm_min_bytes"]; ok {
			var b byteSize
			if err := b.Set(fmt.Sprint(v)); err != nil {
				return nil, fmt.Errorf("config %s: workers[%d].mm_shm_min_bytes: %v", path, i, err)
			}
			w.ShmMinBytes = int(b)
		}
		if v, ok := m["encoder_dtype"].(string); ok {
			w.EncoderDType = v
		}
		if v, ok := m["runtime"].(string); ok {
			w.Runtime = v
		}
		out = append(out, w)
	}
	return out, nil
}

func serve(ctx context.Context, s *stdio, f *serveFlags, c *serveConfig, log *slog.Logger) error {
	if _, set := os.LookupEnv("GOGC"); !set && f.gcPercent > 0 {
		debug.SetGCPercent(f.gcPercent)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	tmp, err := os.MkdirTemp("", "mmgate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	cpu := f.cpu
	if cpu <= 0 {
		cpu = runtime.GOMAXPROCS(0)
	}
	heavy, err := serveHeavy(f, cpu, log)
	if err != nil {
		return err
	}
	if heavy != nil {
		defer heavy.Close()
	}
	if f.renderOnly {
		return serveRenderOnly(ctx, f, c, log, reg, cpu, heavy)
	}
	ctl, basis, err := f.newAdmission(f.limits.queueTimeout, reg)
	if err != nil {
		return err
	}
	modelDir, prune, stopWorker, err := serveEmbedded(ctx, f, c, tmp, heavy, log)
	if err != nil {
		return err
	}
	defer stopWorker()

	pool, stopJanitor, err := startShm(f, c, reg, log, ctl.Holder("shm_reuse"), prune)
	if err != nil {
		return err
	}
	defer pool.Close()
	defer stopJanitor()

	eng, err := engine.New(engine.Options{Protocols: protocols.Protocols(), StallTimeout: f.stallTimeout, Workers: c.workers, Policy: f.policy,
		HealthInterval: f.healthInterval, Pool: pool, Registerer: reg, Logger: log})
	if err != nil {
		return err
	}
	if err := eng.Start(context.Background()); err != nil {
		return err
	}
	defer eng.Close()

	dec, fetcher, vdec, err := serveMedia(f, c, log)
	if err != nil {
		return err
	}
	defer fetcher.Close()
	pipe, err := pipeline.New(pipeline.Options{
		Engine: eng, Pool: pool, Fetcher: fetcher, Decoder: imageprep.ScratchDecoder(dec), Video: vdec,
		Families: builtin.New(), ModelDir: modelDir, BundleDir: filepath.Join(tmp, "bundles"),
		CacheBytes: f.cacheBudget(), CPU: cpu, MediaOrder: c.order, MaxMediaItems: f.maxItems,
		Admission: ctl, InlineCopies: inlineCopies(f.embedded),
		Exact: media.Exact(), Heavy: heavy, Registerer: reg, Logger: log,
	})
	if err != nil {
		return err
	}
	so := c.server
	so.Backend, so.MaxBodyBytes, so.MaxInFlight, so.Heavy = pipe, int64(f.maxBody), f.maxInFlight, heavyRunner(heavy)
	so.Registry, so.Logger, so.APIKeys, so.MetricsAuth = reg, log, c.apiKeys, f.metricsAuth
	srv, err := server.New(so)
	if err != nil {
		return err
	}

	announce := func() {
		logConfig(log, f, c, modelDir, pool, basis)
		if f.embedded {
			printCurlExample(s, f.listen, tmp, c.httpTLS != nil)
		}
	}
	return serveHTTP(ctx, f, c, srv, log, announce, func() {
		// The engine waits for the Abort calls of cut requests; then no
		// worker will read our segments any more.
		eng.Close()
		stopJanitor()
		pool.Close()
		removeOwnSegments(log, pool)
	})
}

// serveEmbedded starts the embedded worker when asked (on the demo model
// unless --model is given) and adds it to the workers. It returns the model
// folder, the function that drops the worker's mappings of removed
// segments (nil without an embedded worker) and the one that stops it.
func serveEmbedded(ctx context.Context, f *serveFlags, c *serveConfig, tmp string, heavy *cpupool.Pool, log *slog.Logger) (string, func(), func(), error) {
	modelDir := f.model
	if !f.embedded {
		return modelDir, nil, func() {}, nil
	}
	if modelDir == "" {
		var err error
		if modelDir, err = demomodel.Materialize(tmp); err != nil {
			return "", nil, nil, err
		}
	}
	w, err := startEmbeddedWorkerWith(ctx, modelDir, tmp, f, f.embeddedFlags, heavyRunner(heavy), log)
	if err != nil {
		return "", nil, nil, fmt.Errorf("embedded worker: %w", err)
	}
	c.workers = append(c.workers, engine.WorkerConfig{URL: w.url, Transport: c.mode, ShmMinBytes: int(f.shmMinBytes), MaxMessageSize: int(f.maxMessageSize)})
	return modelDir, w.prune, w.stop, nil
}

// inlineCopies is how many copies of an inline tensor exist while it is
// sent: the gateway's buffer and gRPC's encoded message, and with the
// embedded worker its decoded message in this process too.
func inlineCopies(embedded bool) int {
	if embedded {
		return 3
	}
	return 2
}

// startShm opens the shared-memory pool and starts its janitor, which the
// returned function stops. The idle segments kept for reuse count in the
// tensor memory budget through idle, which takes them back when a request
// waits for room; prune, when set, drops the embedded worker's mappings of
// segments the pool removed.
func startShm(f *serveFlags, c *serveConfig, reg prometheus.Registerer, log *slog.Logger, idle *admission.Holder, prune func()) (*shm.Pool, func(), error) {
	pool, err := shm.New(shm.Options{Dir: f.shmDir, TTL: f.shmTTL, SweepInterval: f.shmSweep, Budget: int64(f.shmBudget), Registerer: reg, Logger: log,
		ShareWithGroup: c.shmGID >= 0, GID: max(c.shmGID, 0), OnIdleBytes: idle.Set, OnRemoved: prune})
	if err != nil {
		return nil, nil, err
	}
	idle.OnReclaim(pool.TrimIdle)
	ctx, stop := context.WithCancel(context.Background())
	go pool.RunJanitor(ctx)
	return pool, stop, nil
}

// cacheBudget is the tensor cache budget for the pipeline: 0 disables it.
func (f *serveFlags) cacheBudget() int64 {
	if f.cacheBytes == 0 {
		return -1
	}
	return int64(f.cacheBytes)
}

// logConfig logs the effective configuration once.
func logConfig(log *slog.Logger, f *serveFlags, c *serveConfig, modelDir string, pool *shm.Pool, basis budgetBasis) {
	urls := make([]string, len(c.workers))
	for i, w := range c.workers {
		urls[i] = w.URL
	}
	pr := pool.Probe()
	attrs := []any{"version", version, "listen", f.listen, "model", modelDir, "workers", urls,
		"embedded_worker", f.embedded, "max_body_bytes", int64(f.maxBody), "max_media_items", f.maxItems,
		"max_in_flight", f.maxInFlight, "cpu", f.cpu, "cache_bytes", int64(f.cacheBytes),
		"fetch_timeout", f.fetchTimeout, "fetch_max_bytes", int64(f.fetchMaxBytes), "fetch_max_redirects", f.fetchRedirects,
		"fetch_allow_hosts", []string(f.allowHosts), "fetch_allow_cidrs", []string(f.allowCIDRs), "file_roots", []string(f.fileRoots),
		"max_image_pixels", f.maxPixels, "rgba_background", f.background, "exif", !f.noEXIF,
		"mm_transport", f.transport, "mm_shm_min_bytes", int64(f.shmMinBytes), "shm_dir", f.shmDir,
		"shm_usable", pool.Usable(), "shm_size", pr.Size, "shm_budget", pr.Budget, "shm_namespace_id", pr.NamespaceID,
		"shm_ttl", f.shmTTL, "shm_group", f.shmGroup, "health_interval", f.healthInterval, "max_message_size", int64(f.maxMessageSize),
		"max_tensor_bytes_in_flight", basis.bytes, "max_tensor_bytes_in_flight_source", basis.source, "machine_memory", basis.memory,
		"max_request_tensor_bytes", basis.per, "tensor_memory_wait", basis.wait,
		"media_order", f.mediaOrder, "policy", f.policy, "heavy_nice", f.heavyNice, "heavy_idle", f.heavyIdle, "gc_percent", f.gcPercent, "worker_stall_timeout", f.stallTimeout, "shutdown_timeout", f.shutdownTimeout, "decoders_exact", media.Exact(),
		"api_keys", len(c.apiKeys), "metrics_auth", f.metricsAuth, "tls", c.httpTLS != nil,
		"worker_tls_ca", f.workerTLSCA, "worker_tls_client_cert", f.workerTLSCert != "", "worker_tls_server_name", f.workerTLSName}
	log.Info("mmgate serve", append(attrs, f.limits.logAttrs()...)...)
	for _, w := range pr.Warnings {
		log.Warn("shared memory: " + w)
	}
}

// heavyRunner adapts a pool (or none) to the server's Heavy option.
func heavyRunner(p *cpupool.Pool) func(context.Context, func()) error {
	if p == nil {
		return nil
	}
	return p.Run
}
