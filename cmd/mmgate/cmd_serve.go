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
	"github.com/mmgate/mmgate/internal/access"
	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/config"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/fleet"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/shm"
)

// serveFlags are the gateway's settings (the README lists the defaults).
type serveFlags struct {
	embeddedFlags
	fleetFlags
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
	shutdownTimeout time.Duration
	heavyNice       int
	heavyIdle       bool
	stallTimeout    time.Duration
	gcPercent       int
	videoDuration   time.Duration
	videoFrames     int
	videoBytes      byteSize
	config          string

	apiKeys       config.Secrets
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
	fs.Var(&f.servedNames, "served-model-name", "a model `NAME` requests give (repeatable). With --render-only: the names render answers to (default: --model as given). Otherwise: names served before any worker reports them, so requests get 503 no_worker rather than 404 while no worker serves them (default: the --model folder's name)")
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
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGTERM/SIGINT, how long in-flight requests may finish")
	fs.StringVar(&f.config, "config", "", "configuration file (YAML or JSON)")
	fs.DurationVar(&f.videoDuration, "video-max-duration", 10*time.Minute, "longest video accepted")
	fs.IntVar(&f.videoFrames, "video-max-frames", 768, "most frames sampled from one video")
	fs.Var(&f.videoBytes, "video-max-bytes", "largest video accepted")
	f.registerEmbedded(fs)
	f.fleetFlags.register(fs)
	f.limits.register(fs)
	f.admissionFlags.register(fs)
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
	fs := newFlagSet(s, "serve", "serve [--listen HOST:PORT] [--model MODEL_DIR] [--worker URL]... [--embedded-worker] [--service-discovery --selector KEY=VALUE...] [--policy POLICY] [--config FILE] [flags]")
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
	cfg.flags = fs
	if err := serve(ctx, s, &f, cfg, log); err != nil {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
}

// serveConfig is what the flags become once parsed and checked.
type serveConfig struct {
	flags      *flag.FlagSet // resolved, for the effective-configuration log
	background [3]uint8
	cidrs      []netip.Prefix
	order      openai.MediaOrder
	worker     engine.WorkerConfig // what every worker shares (no URL)
	workers    []engine.WorkerConfig
	apiKeys    []string
	httpTLS    *tls.Config    // nil: plain HTTP
	server     server.Options // the limits (limitFlags); serve adds the rest
	shmGID     int            // -1: segments are owner-only
}

// validate checks the flags and parses what needs parsing; an error is a
// usage error.
func (f *serveFlags) validate() (*serveConfig, error) {
	c := &serveConfig{}
	for _, step := range []func(*serveConfig) error{f.parseMedia, f.parseAccess, f.parseWorkers} {
		if err := step(c); err != nil {
			return nil, err
		}
	}
	if err := f.fleetFlags.validate(); err != nil {
		return nil, err
	}
	if f.renderOnly {
		return c, f.checkRenderOnly()
	}
	if len(c.workers) == 0 && !f.embedded && !f.discovery {
		return nil, errors.New("no worker: give --worker URL (repeatable), --embedded-worker or --service-discovery")
	}
	return c, f.embeddedFlags.validate()
}

// parseMedia reads the media and transport settings that need parsing.
func (f *serveFlags) parseMedia(c *serveConfig) error {
	parts := strings.Split(f.background, ",")
	if len(parts) != 3 {
		return fmt.Errorf("--rgba-background %q: want R,G,B", f.background)
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 8)
		if err != nil {
			return fmt.Errorf("--rgba-background %q: %v", f.background, err)
		}
		c.background[i] = uint8(v)
	}
	for _, s := range f.allowCIDRs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return fmt.Errorf("--fetch-allow-cidr: %v", err)
		}
		c.cidrs = append(c.cidrs, p)
	}
	mode, err := shm.ParseMode(f.transport)
	if err != nil {
		return fmt.Errorf("--mm-transport: %v", err)
	}
	c.worker = engine.WorkerConfig{Transport: mode, ShmMinBytes: int(f.shmMinBytes), MaxMessageSize: int(f.maxMessageSize)}
	switch f.mediaOrder {
	case "media_first":
		c.order = openai.MediaFirst
	case "authored":
		c.order = openai.Authored
	default:
		return fmt.Errorf("--media-order %q: want media_first or authored", f.mediaOrder)
	}
	return nil
}

// parseAccess reads who may use the gateway and how: the shared-memory
// group, API keys, the client limits and TLS.
func (f *serveFlags) parseAccess(c *serveConfig) error {
	var err error
	if c.shmGID, err = access.ShmGroup(f.shmGroup); err != nil {
		return err
	}
	if c.apiKeys, err = access.APIKeys(f.apiKeys.Values(), f.apiKeyFile); err != nil {
		return err
	}
	if f.metricsAuth && len(c.apiKeys) == 0 {
		return errors.New("--metrics-auth needs --api-key or --api-key-file")
	}
	if err := f.limits.apply(&c.server); err != nil {
		return err
	}
	if c.httpTLS, err = access.ListenerTLS(f.tlsCert, f.tlsKey); err != nil {
		return err
	}
	if c.worker.TLS, err = access.WorkerTLS(f.workerTLSCA, f.workerTLSCert, f.workerTLSKey, f.workerTLSName); err != nil {
		return err
	}
	return nil
}

// parseWorkers lists the workers: --worker, else the config file's
// `workers:` with their overrides.
func (f *serveFlags) parseWorkers(c *serveConfig) error {
	for _, u := range f.workers {
		w := c.worker
		w.URL = u
		c.workers = append(c.workers, w)
	}
	if f.config == "" {
		return nil
	}
	ws, err := config.Workers(f.config, c.worker)
	if err == nil && len(f.workers) == 0 {
		c.workers = ws
	}
	return err
}

// serve runs the gateway (or, with --render-only, the render API) until ctx
// ends.
func serve(ctx context.Context, s *stdio, f *serveFlags, c *serveConfig, log *slog.Logger) error {
	if _, set := os.LookupEnv("GOGC"); !set && f.gcPercent > 0 {
		debug.SetGCPercent(f.gcPercent)
	}
	reg := newRegistry()
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
	modelDir, prune, stopWorker, err := serveEmbedded(f, c, tmp, heavy, log)
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

	eng, fl, stopEngine, err := startEngine(f, c, modelDir, pool, reg, log)
	if err != nil {
		return err
	}
	defer stopEngine()

	dec, fetcher, vdec, err := serveMedia(f, c, log)
	if err != nil {
		return err
	}
	defer fetcher.Close()
	pipe, err := pipeline.New(pipeline.Options{
		Engine: eng, Pool: pool, Fetcher: fetcher, Decoder: imageprep.ScratchDecoder(dec), Video: vdec,
		Families: builtin.New(), ModelDir: modelDir, BundleDir: filepath.Join(tmp, "bundles"),
		CacheBytes: zeroOff(int64(f.cacheBytes)), CPU: cpu, MediaOrder: c.order, MaxMediaItems: f.maxItems,
		Admission: ctl, InlineCopies: inlineCopies(f.embedded),
		Exact: media.Exact(), Heavy: heavy, Registerer: reg, Logger: log,
	})
	if err != nil {
		return err
	}
	srv, err := newServer(f, c, withFleet{pipe, fl}, reg, log, heavy)
	if err != nil {
		return err
	}
	announce := func() {
		logConfig(log, f, c, modelDir, pool, basis)
		if f.embedded {
			demomodel.PrintExample(s.err, f.listen, c.httpTLS != nil, tmp)
		}
	}
	return serveHTTP(ctx, f, c, srv, log, announce, func() {
		// Discovery stops; the engine waits for the Abort calls of cut
		// requests; then no worker will read our segments any more.
		stopEngine()
		stopJanitor()
		pool.Close()
		if n := pool.RemoveOwn(); n > 0 {
			log.Info("shutdown: removed shared-memory segments left by cut requests", "segments", n)
		}
	})
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

// newRegistry is the metrics registry, with the Go runtime's and the
// process's collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// startEngine connects the static workers and starts checking their
// health, puts a Fleet over the engine (registering its metrics) and, with
// --service-discovery, watches pods. stop stops discovery, then closes the
// engine; it may be called more than once.
func startEngine(f *serveFlags, c *serveConfig, modelDir string, pool *shm.Pool, reg prometheus.Registerer, log *slog.Logger) (eng *engine.Engine, fl *fleet.Fleet, stop func(), err error) {
	eng, err = engine.New(engine.Options{Protocols: protocols.Protocols(), StallTimeout: f.stallTimeout, Workers: c.workers,
		Models: servedModels(f, modelDir), Policy: f.policy, CacheAware: f.cacheAware(),
		HealthInterval: f.healthInterval, Pool: pool, Registerer: reg, Logger: log})
	if err != nil {
		return nil, nil, nil, err
	}
	if err := eng.Start(context.Background()); err != nil {
		eng.Close()
		return nil, nil, nil, err
	}
	fl, err = fleet.New(fleet.Options{Engine: eng, Worker: c.worker, Logger: log})
	if err == nil {
		err = reg.Register(fl.Collector())
	}
	var stopFleet func()
	if err == nil {
		stopFleet, err = f.discover(fl, log)
	}
	if err != nil {
		eng.Close()
		return nil, nil, nil, err
	}
	return eng, fl, func() { stopFleet(); eng.Close() }, nil
}

// logConfig logs the effective configuration once: every flag's value
// and what start-up resolved (serveFacts).
func logConfig(log *slog.Logger, f *serveFlags, c *serveConfig, modelDir string, pool *shm.Pool, basis budgetBasis) {
	facts := serveFacts(f, c, modelDir, pool, basis)
	log.LogAttrs(context.Background(), slog.LevelInfo, "mmgate serve", config.Effective(c.flags, facts...)...)
	for _, w := range pool.Probe().Warnings {
		log.Warn("shared memory: " + w)
	}
}

// serveFacts are the gateway's settings resolved at start, logged with
// the flags: the model folder and the workers in use, the model names
// served before a worker reports them, the kubeconfig discovery reads, the
// shared memory found, the tensor memory budget and where it comes from,
// whether pixels are exact, how many API keys and whether TLS.
func serveFacts(f *serveFlags, c *serveConfig, modelDir string, pool *shm.Pool, basis budgetBasis) []slog.Attr {
	urls := make([]string, len(c.workers))
	for i, w := range c.workers {
		urls[i] = w.URL
	}
	pr := pool.Probe()
	facts := []slog.Attr{
		slog.String("version", version), slog.String("model", modelDir), slog.Any("workers", urls),
		slog.Any("served_model_names", servedModels(f, modelDir)),
		slog.Bool("exif", !f.noEXIF), slog.Bool("shm_usable", pool.Usable()), slog.Int64("shm_size", pr.Size),
		slog.Int64("shm_budget", pr.Budget), slog.String("shm_namespace_id", pr.NamespaceID), slog.Bool("decoders_exact", media.Exact()),
		slog.Int("api_keys", len(c.apiKeys)), slog.Bool("tls", c.httpTLS != nil), slog.Bool("worker_tls_client_cert", f.workerTLSCert != ""),
	}
	facts = append(facts, basis.facts()...)
	if f.discovery {
		facts = append(facts, slog.String("kubeconfig", f.kubeconfigFile()))
	}
	return facts
}

// newServer is the HTTP server over backend with the limits, keys,
// metrics and session header of the flags.
func newServer(f *serveFlags, c *serveConfig, backend server.Backend, reg *prometheus.Registry, log *slog.Logger, heavy *cpupool.Pool) (*server.Server, error) {
	so := c.server
	so.Backend, so.MaxBodyBytes, so.MaxInFlight, so.Heavy = backend, int64(f.maxBody), f.maxInFlight, heavyRunner(heavy)
	so.Registry, so.Logger, so.APIKeys, so.MetricsAuth, so.SessionHeader = reg, log, c.apiKeys, f.metricsAuth, f.sessionHeader
	return server.New(so)
}

// heavyRunner adapts a pool (or none) to the server's Heavy option.
func heavyRunner(p *cpupool.Pool) func(context.Context, func()) error {
	if p == nil {
		return nil
	}
	return p.Run
}
