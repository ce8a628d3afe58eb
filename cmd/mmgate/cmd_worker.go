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

// workerFlags are the settings of `mmgate worker`, the reference worker.
type workerFlags struct {
	protocol       string
	model          string
	listen         string
	servedName     string
	encoderDType   string
	fingerprint    string
	shmDir         string
	keepShm        bool
	toolCall       string
	tokenDelay     time.Duration
	rejectEvery    int
	maxMessageSize int
	tlsCert        string
	tlsKey         string
	tlsClientCA    string
}

func (w *workerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.protocol, "protocol", refworker.TokenSpeed, "gRPC protocol to serve: "+strings.Join(refworker.Protocols(), "|"))
	fs.StringVar(&w.model, "model", "", "model folder (config.json, tokenizer.json, chat template, processor configs)")
	fs.StringVar(&w.listen, "listen", "127.0.0.1:50051", "gRPC listen address: HOST:PORT or unix:///path")
	fs.StringVar(&w.servedName, "served-model-name", "", "model name clients use (default: the model folder's base name)")
	fs.StringVar(&w.encoderDType, "encoder-dtype", "", "multimodal_encoder_dtype to advertise: float32|bfloat16|float16 (default: the model dtype)")
	fs.StringVar(&w.fingerprint, "fingerprint", "sha256", "digest of encoder-input bytes in replies: sha256|crc32c")
	fs.StringVar(&w.shmDir, "shm-dir", shm.DefaultDir, "shared-memory directory to read segments from")
	fs.BoolVar(&w.keepShm, "keep-shm", false, "do not unlink shared-memory segments after reading them, and advertise it (TokenSpeed's scheduler_info shm_keep_after_read) so that gateways refill the same segments")
	fs.StringVar(&w.toolCall, "reply-tool-call", "", "answer every request with this text (e.g. a <tool_call> block) instead of the description")
	fs.DurationVar(&w.tokenDelay, "token-delay", 0, "pause between streamed tokens (tests of cancellation)")
	fs.IntVar(&w.rejectEvery, "reject-every", 0, "fail every Nth Generate call with INVALID_ARGUMENT (fault injection; 0 never)")
	fs.IntVar(&w.maxMessageSize, "max-message-size", 256<<20, "gRPC max message size in bytes")
	fs.StringVar(&w.tlsCert, "tls-cert", "", "PEM certificate (chain): serve gRPC over TLS (gateways use grpcs://)")
	fs.StringVar(&w.tlsKey, "tls-key", "", "PEM private key for --tls-cert")
	fs.StringVar(&w.tlsClientCA, "tls-client-ca", "", "PEM CA certificates: require client certificates signed by them (mutual TLS)")
}

// options are the worker's options; the TLS configuration comes checked.
func (w *workerFlags) options(log *slog.Logger) (refworker.ProcessOptions, error) {
	o := refworker.ProcessOptions{
		Options: refworker.Options{
			Protocol: w.protocol, ModelDir: w.model, ServedModelName: w.servedName, EncoderDType: w.encoderDType,
			Fingerprint: refworker.Fingerprint(w.fingerprint), ToolCall: w.toolCall, TokenDelay: w.tokenDelay,
			RejectEvery: w.rejectEvery, Version: "mmgate-" + version, Logger: log,
		},
		ShmDir: w.shmDir, KeepShm: w.keepShm, MaxMessageSize: w.maxMessageSize,
	}
	if w.model == "" {
		return o, errors.New("--model is required")
	}
	if _, err := refworker.ParseFingerprint(w.fingerprint); err != nil {
		return o, err
	}
	if !slices.Contains(refworker.Protocols(), w.protocol) {
		return o, fmt.Errorf("--protocol %q is not one of %s", w.protocol, strings.Join(refworker.Protocols(), ", "))
	}
	var err error
	o.TLS, err = access.GRPCServerTLS(w.tlsCert, w.tlsKey, w.tlsClientCA)
	return o, err
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
	errc := make(chan error, 1)
	go func() { errc <- p.Serve(lis) }()
	select {
	case err := <-errc:
		log.Error("worker: serve", "err", err)
		return 1
	case <-ctx.Done():
	}
	log.Info("worker: shutting down")
	p.Stop(10 * time.Second)
	return 0
}
