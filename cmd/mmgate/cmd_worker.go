package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mmgate/mmgate/internal/access"
	"github.com/mmgate/mmgate/internal/config"
	"github.com/mmgate/mmgate/internal/listen"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
)

// workerFlags are the settings of `mmgate worker`, the reference worker:
// refworker's options as the flags give them, and what becomes a listener
// and a TLS configuration.
type workerFlags struct {
	o           refworker.ProcessOptions
	listen      string
	tlsCert     string
	tlsKey      string
	tlsClientCA string
}

func (w *workerFlags) register(fs *flag.FlagSet) {
	o := &w.o
	fs.StringVar(&o.Protocol, "protocol", refworker.TokenSpeed, "gRPC protocol to serve: "+strings.Join(refworker.Protocols(), "|"))
	fs.StringVar(&o.ModelDir, "model", "", "model folder (config.json, tokenizer.json, chat template, processor configs)")
	fs.StringVar(&w.listen, "listen", "127.0.0.1:50051", "gRPC listen address: HOST:PORT or unix:///path")
	fs.StringVar(&o.ServedModelName, "served-model-name", "", "model name clients use (default: the model folder's base name)")
	fs.StringVar(&o.EncoderDType, "encoder-dtype", "", "multimodal_encoder_dtype to advertise: float32|bfloat16|float16 (default: the model dtype)")
	fs.StringVar((*string)(&o.Fingerprint), "fingerprint", "sha256", "digest of encoder-input bytes in replies: sha256|crc32c")
	fs.StringVar(&o.ShmDir, "shm-dir", shm.DefaultDir, "shared-memory directory to read segments from")
	fs.BoolVar(&o.KeepShm, "keep-shm", false, "do not unlink shared-memory segments after reading them, and advertise it (TokenSpeed's scheduler_info shm_keep_after_read) so that gateways refill the same segments")
	fs.StringVar(&o.ToolCall, "reply-tool-call", "", "answer every request with this text (e.g. a <tool_call> block) instead of the description")
	fs.DurationVar(&o.TokenDelay, "token-delay", 0, "pause between streamed tokens (tests of cancellation)")
	fs.IntVar(&o.RejectEvery, "reject-every", 0, "fail every Nth Generate call with INVALID_ARGUMENT (fault injection; 0 never)")
	fs.IntVar(&o.MaxMessageSize, "max-message-size", 256<<20, "gRPC max message size in bytes")
	fs.IntVar(&o.PrefixCache, "prefix-cache-tokens", refworker.DefaultPrefixCache, "prompt tokens the worker's model of a prefix cache holds, reported as cached_tokens (0: no cache)")
	fs.Float64Var(&o.PrefillRate, "prefill-rate", 0, "prompt tokens per second the worker pretends to compute before its first token (the cache's tokens are free; 0: no wait)")
	fs.StringVar(&w.tlsCert, "tls-cert", "", "PEM certificate (chain): serve gRPC over TLS (gateways use grpcs://)")
	fs.StringVar(&w.tlsKey, "tls-key", "", "PEM private key for --tls-cert")
	fs.StringVar(&w.tlsClientCA, "tls-client-ca", "", "PEM CA certificates: require client certificates signed by them (mutual TLS)")
}

// options are the worker's options; the TLS configuration comes checked.
func (w *workerFlags) options(log *slog.Logger) (refworker.ProcessOptions, error) {
	o := w.o
	o.PrefixCache, o.Version, o.Logger = cacheTokens(o.PrefixCache), "mmgate-"+version, log
	if o.ModelDir == "" {
		return o, errors.New("--model is required")
	}
	if _, err := refworker.ParseFingerprint(string(o.Fingerprint)); err != nil {
		return o, err
	}
	if !slices.Contains(refworker.Protocols(), o.Protocol) {
		return o, fmt.Errorf("--protocol %q is not one of %s", o.Protocol, strings.Join(refworker.Protocols(), ", "))
	}
	var err error
	o.TLS, err = access.GRPCServerTLS(w.tlsCert, w.tlsKey, w.tlsClientCA)
	return o, err
}

// cacheTokens maps --prefix-cache-tokens to Options.PrefixCache: 0 (the
// flag's "off") is negative there, where 0 is the default.
func cacheTokens(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func runWorker(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "worker", "worker --model MODEL_DIR [--protocol tokenspeed|vllm|sglang] [--listen HOST:PORT|unix:///PATH] [flags]")
	var w workerFlags
	w.register(fs)
	fs.String("config", "", "configuration file (YAML or JSON)")
	lf := addLogFlags(fs)
	rest, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(s.err, "mmgate worker: unexpected arguments %v\n", rest)
		return 2
	}
	log, err := lf.logger(s)
	if err != nil {
		fmt.Fprintln(s.err, "mmgate worker:", err)
		return 2
	}
	o, err := w.options(log)
	if err != nil {
		fmt.Fprintln(s.err, "mmgate worker:", err)
		return 2
	}
	p, err := refworker.Open(o)
	if err != nil {
		log.Error("worker: cannot start", "err", err)
		return 1
	}
	defer p.Stop(0)
	lis, err := listen.Open(w.listen)
	if err != nil {
		log.Error("worker: cannot listen", "err", err)
		return 1
	}
	log.LogAttrs(ctx, slog.LevelInfo, "reference worker serving", config.Effective(fs,
		slog.String("protocol", p.Protocol()), slog.Bool("tls", w.tlsCert != ""), slog.Bool("mtls", w.tlsClientCA != ""),
		slog.String("served_model_name", p.ServedModelName()), slog.String("shm_namespace_id", p.NamespaceID()))...)
	if err := p.ServeUntil(ctx, lis); err != nil {
		log.Error("worker: serve", "err", err)
		return 1
	}
	log.Info("worker: shutting down")
	p.Stop(10 * time.Second)
	return 0
}
