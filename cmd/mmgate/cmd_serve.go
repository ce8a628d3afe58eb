package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/config"
	"github.com/mmgate/mmgate/internal/gateway"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
)

// serveFlags are the gateway's settings (the README lists the defaults):
// the flags that set an option as they are, in o (gateway.Options says
// what each means), and the ones parsed into options by validate.
type serveFlags struct {
	o             gateway.Options
	limits        limitFlags
	workers       stringList
	allowCIDRs    stringList
	background    string
	transport     string
	mediaOrder    string
	gcPercent     int
	config        string
	apiKeys       config.Secrets
	apiKeyFile    string
	tlsCert       string
	tlsKey        string
	workerTLSCA   string
	workerTLSCert string
	workerTLSKey  string
	workerTLSName string
	shmGroup      string
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	o := &f.o
	o.MaxBodyBytes, o.Media.CacheBytes, o.Media.FetchMax, o.Media.VideoBytes = 64<<20, 512<<20, 32<<20, 256<<20
	o.Workers.ShmMinBytes, o.Workers.MaxMessageSize = 65536, 256<<20
	fs.StringVar(&o.Listen, "listen", gateway.DefaultListen, "HTTP listen address: HOST:PORT or unix:///path")
	fs.StringVar(&o.Model, "model", "", "model folder (tokenizer, chat template, processor configs); default: fetched from the worker, or the demo model with --embedded-worker")
	fs.BoolVar(&o.RenderOnly, "render-only", false, "serve the render API (vLLM's /v1/chat/completions/render, /v1/completions/render, /tokenize, /detokenize) for the --model folder with no worker; generation routes answer 503")
	fs.Var((*stringList)(&o.ServedModelNames), "served-model-name", "a model `NAME` requests give (repeatable). With --render-only: the names render answers to (default: --model as given). Otherwise: names served before any worker reports them, so requests get 503 no_worker rather than 404 while no worker serves them (default: the --model folder's name)")
	fs.IntVar(&o.MaxModelLen, "max-model-len", 0, "with --render-only: the context length render budgets against, as vLLM's --max-model-len (0: the model's own)")
	fs.Var(&f.workers, "worker", "worker URL, grpc://HOST:PORT, grpcs://HOST:PORT (TLS) or unix:///path (repeatable)")
	fs.BoolVar(&o.Embedded.Enabled, "embedded-worker", false, "start a reference worker inside this process (on a unix socket, sharing /dev/shm)")
	fs.StringVar(&o.Embedded.Fingerprint, "embedded-fingerprint", "sha256", "the embedded worker's fingerprint of encoder inputs: sha256|crc32c")
	fs.BoolVar(&o.Embedded.KeepShm, "embedded-keep-shm", true,
		"the embedded worker keeps shared-memory segments after reading them and advertises it, so the gateway refills the same segments instead of creating one per tensor; false: it unlinks each segment after reading (always so with --embedded-protocol vllm, whose protocol cannot advertise it)")
	fs.StringVar(&o.Embedded.Protocol, "embedded-protocol", refworker.TokenSpeed, "the embedded worker's gRPC protocol: "+strings.Join(refworker.Protocols(), "|"))
	fs.Var((*byteSize)(&o.MaxBodyBytes), "max-body-bytes", "request body limit")
	fs.IntVar(&o.Media.MaxItems, "max-media-items", 16, "media items per request")
	fs.IntVar(&o.MaxInFlight, "max-in-flight", 256, "API requests processed at once, counted once their body is in; over it: 429 at once, or a wait of --queue-timeout")
	fs.IntVar(&o.Media.CPU, "cpu", 0, "CPU-heavy work in parallel (decode, resize, patchify); 0 means GOMAXPROCS")
	fs.Var((*byteSize)(&o.Media.CacheBytes), "cache-bytes", "preprocessed-tensor cache budget (0 disables)")
	fs.DurationVar(&o.Media.FetchTimeout, "fetch-timeout", 10*time.Second, "media fetch timeout")
	fs.Var((*byteSize)(&o.Media.FetchMax), "fetch-max-bytes", "media size limit")
	fs.IntVar(&o.Media.FetchRedirects, "fetch-max-redirects", 3, "media fetch redirects")
	fs.Var((*stringList)(&o.Media.AllowHosts), "fetch-allow-host", "host the fetch policy lets through even when it resolves to a private address (repeatable)")
	fs.Var(&f.allowCIDRs, "fetch-allow-cidr", "address range the fetch policy lets through (repeatable)")
	fs.Var((*stringList)(&o.Media.FileRoots), "file-root", "directory file:// media URLs may read below (repeatable; none by default)")
	fs.IntVar(&o.Media.MaxPixels, "max-image-pixels", media.DefaultMaxPixels, "decoded image pixel cap, checked from the header before decoding")
	fs.StringVar(&f.background, "rgba-background", "255,255,255", "background R,G,B for transparent images")
	fs.BoolVar(&o.Media.NoEXIF, "no-exif", false, "do not apply EXIF orientation")
	fs.StringVar(&f.transport, "mm-transport", "auto", "tensor transport to workers: auto|inline|shm")
	fs.Var((*byteSize)(&o.Workers.ShmMinBytes), "mm-shm-min-bytes", "tensors below this stay inline")
	fs.StringVar(&o.Shm.Dir, "shm-dir", shm.DefaultDir, "shared-memory directory")
	fs.Var((*byteSize)(&o.Shm.Budget), "shm-budget", "bytes in shared memory at once (default: half the tmpfs)")
	fs.DurationVar(&o.Shm.TTL, "shm-ttl", 30*time.Second, "age after which an unread segment is removed")
	fs.DurationVar(&o.Shm.Sweep, "shm-sweep-interval", 5*time.Second, "janitor period")
	fs.IntVar(&f.gcPercent, "gc-percent", 300, "Go garbage collector target (GOGC): image requests allocate tens of MB each, and collecting less often raises throughput (about 10% at 300 against Go's 100) for more memory; the GOGC environment variable, when set, wins")
	fs.DurationVar(&o.Workers.StallTimeout, "worker-stall-timeout", 5*time.Minute, "a worker that sends nothing for this long on a request is aborted and the request fails with 504 (0: no limit)")
	fs.DurationVar(&o.Workers.HealthInterval, "health-interval", 5*time.Second, "worker health check period")
	fs.Var((*byteSize)(&o.Workers.MaxMessageSize), "max-message-size", "gRPC max message size")
	fs.StringVar(&f.mediaOrder, "media-order", "media_first", "media order inside a message: media_first|authored")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGTERM/SIGINT, how long in-flight requests may finish")
	fs.StringVar(&f.config, "config", "", "configuration file (YAML or JSON)")
	fs.DurationVar(&o.Media.VideoDuration, "video-max-duration", 10*time.Minute, "longest video accepted")
	fs.IntVar(&o.Media.VideoFrames, "video-max-frames", 768, "most frames sampled from one video")
	fs.Var((*byteSize)(&o.Media.VideoBytes), "video-max-bytes", "largest video accepted")
	fs.Var((*byteSize)(&o.Budget.Bytes), "max-tensor-bytes-in-flight", fmt.Sprintf(
		"tensor memory budget: planned bytes of the requests between admission and hand-off to their worker, plus the tensor cache and idle shared-memory segments; a request that does not fit waits (--queue-timeout, %v when 0); default (0) %.0f%% of physical RAM, or of the cgroup's memory limit when lower",
		admission.DefaultTimeout, 100*admission.DefaultFraction))
	fs.Var((*byteSize)(&o.Budget.PerRequest), "max-request-tensor-bytes", "planned tensor bytes one request may take; over it: 413 at once, before any media is decoded (0: the budget)")
	registerFleet(fs, &o.Fleet)
	f.limits.register(fs)
	fs.IntVar(&o.Heavy.Nice, "heavy-nice", 10, "nice value (1-19) of the threads that decode and preprocess media when --heavy-idle=false; 0 keeps the process priority on those threads; -1 runs that work on ordinary goroutines (and --heavy-idle is ignored)")
	fs.BoolVar(&o.Heavy.Idle, "heavy-idle", true, "run the media threads under the kernel's SCHED_IDLE policy, so that text requests and token streaming preempt them at once; on a machine shared with other busy processes, false (a nice value) keeps media work from waiting on them")
	fs.Var(&f.apiKeys, "api-key", "API `KEY` clients must send as \"Authorization: Bearer KEY\" on /v1/ routes (repeatable)")
	fs.StringVar(&f.apiKeyFile, "api-key-file", "", "file of API keys, one per line (# comments allowed)")
	fs.BoolVar(&o.MetricsAuth, "metrics-auth", false, "require an API key on /metrics too")
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
	if _, set := os.LookupEnv("GOGC"); !set && f.gcPercent > 0 {
		debug.SetGCPercent(f.gcPercent)
	}
	msg := "mmgate serve"
	if f.o.RenderOnly {
		msg += " --render-only"
	}
	cfg.flags, cfg.Logger, cfg.Example = fs, log, s.err
	cfg.Ready = func(attrs []slog.Attr) { logEffective(log, cfg.flags, msg, attrs) }
	if err := gateway.Run(ctx, cfg.Options); err != nil {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
}

// logEffective logs the effective configuration once: the gateway's
// (its options and what start-up resolved) and every flag it does not
// carry.
func logEffective(log *slog.Logger, fs *flag.FlagSet, msg string, attrs []slog.Attr) {
	log.LogAttrs(context.Background(), slog.LevelInfo, msg, config.Effective(fs, attrs...)...)
}

// serveConfig is what the flags become once parsed and checked.
type serveConfig struct {
	gateway.Options
	flags *flag.FlagSet // resolved, for the effective-configuration log
}

// validate checks the flags and converts them to the gateway's options;
// an error is a usage error.
func (f *serveFlags) validate() (*serveConfig, error) {
	c := &serveConfig{Options: f.o}
	c.Version = version
	for _, step := range []func(*gateway.Options) error{f.parseMedia, f.parseAccess, f.parseWorkers} {
		if err := step(&c.Options); err != nil {
			return nil, err
		}
	}
	if err := validateFleet(&c.Fleet); err != nil {
		return nil, err
	}
	if c.RenderOnly {
		return c, f.checkRenderOnly()
	}
	if len(c.Workers.URLs) == 0 && !c.Embedded.Enabled && !c.Fleet.Discovery {
		return nil, errors.New("no worker: give --worker URL (repeatable), --embedded-worker or --service-discovery")
	}
	if p := c.Embedded.Protocol; !slices.Contains(refworker.Protocols(), p) {
		return nil, fmt.Errorf("--embedded-protocol %q: want %s", p, strings.Join(refworker.Protocols(), ", "))
	}
	return c, nil
}

// checkRenderOnly checks the flags of --render-only.
func (f *serveFlags) checkRenderOnly() error {
	switch {
	case f.o.Model == "":
		return errors.New("--render-only needs --model MODEL_DIR")
	case len(f.workers) > 0 || f.o.Embedded.Enabled:
		return errors.New("--render-only serves without workers: drop --worker and --embedded-worker")
	case f.o.MaxModelLen < 0:
		return errors.New("--max-model-len must not be negative")
	}
	return nil
}
