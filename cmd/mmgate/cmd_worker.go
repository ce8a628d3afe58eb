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

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tokenizer"
)

// workerFlags are the reference worker's settings, shared by `mmgate worker`
// and the gateway's embedded worker.
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
	prefixCache    int
	prefillRate    float64
	maxMessageSize int
	tlsCert        string
	tlsKey         string
	tlsClientCA    string
	// encode runs the worker's reading of tensors (refworker.Options.Encode);
	// set for a worker embedded in a gateway, not by a flag.
	encode func(context.Context, func()) error
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
	fs.IntVar(&w.prefixCache, "prefix-cache-tokens", refworker.DefaultPrefixCache, "prompt tokens the worker's model of a prefix cache holds, reported as cached_tokens (0: no cache)")
	fs.Float64Var(&w.prefillRate, "prefill-rate", 0, "prompt tokens per second the worker pretends to compute before its first token (the cache's tokens are free; 0: no wait)")
}

// registerTLS adds the TLS flags of `mmgate worker` (the embedded worker
// listens on a private unix socket and has none).
func (w *workerFlags) registerTLS(fs *flag.FlagSet) {
	fs.StringVar(&w.tlsCert, "tls-cert", "", "PEM certificate (chain): serve gRPC over TLS (gateways use grpcs://)")
	fs.StringVar(&w.tlsKey, "tls-key", "", "PEM private key for --tls-cert")
	fs.StringVar(&w.tlsClientCA, "tls-client-ca", "", "PEM CA certificates: require client certificates signed by them (mutual TLS)")
}

// build loads the tokenizer and returns the worker and its shm reader.
func (w *workerFlags) build(log *slog.Logger) (*refworker.Server, *shm.Reader, error) {
	if w.model == "" {
		return nil, nil, errors.New("--model is required")
	}
	tok, err := tokenizer.Load(w.model)
	if err != nil {
		return nil, nil, err
	}
	reader, err := shm.NewReader(shm.ReaderOptions{Dir: w.shmDir, KeepFiles: w.keepShm, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	srv, err := refworker.New(refworker.Options{
		Protocol:        w.protocol,
		ModelDir:        w.model,
		Families:        builtin.New(),
		ServedModelName: w.servedName,
		EncoderDType:    w.encoderDType,
		Fingerprint:     refworker.Fingerprint(w.fingerprint),
		Tokenizer:       tok,
		Reader:          reader,
		ToolCall:        w.toolCall,
		TokenDelay:      w.tokenDelay,
		RejectEvery:     w.rejectEvery,
		PrefixCache:     cacheTokens(w.prefixCache),
		PrefillRate:     w.prefillRate,
		Encode:          w.encode,
		Version:         "mmgate-" + version,
		Logger:          log,
	})
	if err != nil {
		reader.Close()
		return nil, nil, err
	}
	return srv, reader, nil
}

// cacheTokens maps --prefix-cache-tokens to Options.PrefixCache: 0 (the
// flag's "off") is negative there, where 0 is the default.
func cacheTokens(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func (w *workerFlags) grpcServer() (*grpc.Server, error) {
	opts := []grpc.ServerOption{grpc.MaxRecvMsgSize(w.maxMessageSize), grpc.MaxSendMsgSize(w.maxMessageSize)}
	cfg, err := grpcServerTLS(w.tlsCert, w.tlsKey, w.tlsClientCA)
	if err != nil {
		return nil, err
	}
	if cfg != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg)))
	}
	return grpc.NewServer(opts...), nil
}

func runWorker(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "worker", "worker --model MODEL_DIR [--protocol tokenspeed|vllm|sglang] [--listen HOST:PORT|unix:///PATH] [flags]")
	var w workerFlags
	w.register(fs)
	w.registerTLS(fs)
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
	if w.model == "" {
		fmt.Fprintln(s.err, "mmgate worker: --model is required")
		return 2
	}
	if _, err := refworker.ParseFingerprint(w.fingerprint); err != nil {
		fmt.Fprintln(s.err, "mmgate worker:", err)
		return 2
	}
	if !slices.Contains(refworker.Protocols(), w.protocol) {
		fmt.Fprintf(s.err, "mmgate worker: --protocol %q is not one of %s\n", w.protocol, strings.Join(refworker.Protocols(), ", "))
		return 2
	}
	g, err := w.grpcServer()
	if err != nil {
		fmt.Fprintln(s.err, "mmgate worker:", err)
		return 2
	}
	srv, reader, err := w.build(log)
	if err != nil {
		log.Error("worker: cannot start", "err", err)
		return 1
	}
	defer reader.Close()
	lis, err := listen(w.listen)
	if err != nil {
		log.Error("worker: cannot listen", "err", err)
		return 1
	}
	srv.Register(g)
	log.Info("reference worker serving", "protocol", srv.Protocol(), "listen", w.listen, "tls", w.tlsCert != "", "mtls", w.tlsClientCA != "", "model", w.model, "served_model_name", srv.ServedModelName(),
		"fingerprint", w.fingerprint, "shm_dir", w.shmDir, "shm_namespace_id", reader.NamespaceID(), "max_message_size", w.maxMessageSize)
	errc := make(chan error, 1)
	go func() { errc <- g.Serve(lis) }()
	select {
	case err := <-errc:
		log.Error("worker: serve", "err", err)
		return 1
	case <-ctx.Done():
	}
	log.Info("worker: shutting down")
	stopped := make(chan struct{})
	go func() { g.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		g.Stop()
	}
	return 0
}
