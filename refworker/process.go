package refworker

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tokenizer"
)

// DefaultMaxMessageSize is ProcessOptions.MaxMessageSize's default.
const DefaultMaxMessageSize = 256 << 20

// ProcessOptions configure Open: the Server's Options and what serving it
// takes. ModelDir is required.
type ProcessOptions struct {
	// Options are the Server's. A nil Tokenizer is loaded from ModelDir; a
	// nil Reader is opened on ShmDir with KeepShm, owned by the Process.
	Options
	// ShmDir is the directory segments are read from (default
	// shm.DefaultDir).
	ShmDir string
	// KeepShm keeps segments after reading them, which the TokenSpeed layer
	// advertises so that gateways refill them (shm.ReaderOptions.KeepFiles).
	KeepShm bool
	// MaxMessageSize bounds gRPC messages both ways (default
	// DefaultMaxMessageSize).
	MaxMessageSize int
	// TLS, when set, serves gRPC over TLS (with ClientCAs and ClientAuth
	// for mutual TLS); nil serves plaintext.
	TLS *tls.Config
}

// Process is a Server registered on a gRPC server of its own, with the
// shared-memory reader it owns: a worker ready to serve a listener.
type Process struct {
	*Server
	grpc      *grpc.Server
	reader    *shm.Reader
	ownReader bool
	stopped   sync.Once
}

// Open loads the model's tokenizer, opens the shared-memory reader, builds
// the Server and registers it on a new gRPC server.
func Open(o ProcessOptions) (*Process, error) {
	if o.ModelDir == "" {
		return nil, fmt.Errorf("%w: ModelDir is required", ErrOptions)
	}
	if o.Tokenizer == nil {
		tok, err := tokenizer.Load(o.ModelDir)
		if err != nil {
			return nil, err
		}
		o.Tokenizer = tok
	}
	p := &Process{reader: o.Reader}
	if p.reader == nil {
		r, err := shm.NewReader(shm.ReaderOptions{Dir: o.ShmDir, KeepFiles: o.KeepShm, Logger: o.Logger})
		if err != nil {
			return nil, err
		}
		p.reader, p.ownReader, o.Reader = r, true, r
	}
	srv, err := New(o.Options)
	if err != nil {
		p.closeReader()
		return nil, err
	}
	size := o.MaxMessageSize
	if size <= 0 {
		size = DefaultMaxMessageSize
	}
	opts := []grpc.ServerOption{grpc.MaxRecvMsgSize(size), grpc.MaxSendMsgSize(size)}
	if o.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(o.TLS)))
	}
	p.Server, p.grpc = srv, grpc.NewServer(opts...)
	srv.Register(p.grpc)
	return p, nil
}

// Serve serves l until Stop; see grpc.Server.Serve.
func (p *Process) Serve(l net.Listener) error {
	return p.grpc.Serve(l)
}

// ServeUntil serves l until ctx ends (then it returns nil, still serving:
// the caller stops the Process) or serving fails (it returns Serve's
// error).
func (p *Process) ServeUntil(ctx context.Context, l net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- p.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return nil
	}
}

// NamespaceID is the reader's shared-memory namespace, which the worker
// advertises.
func (p *Process) NamespaceID() string { return p.reader.NamespaceID() }

// Stop stops serving: calls in flight get grace to finish, then are cut;
// then the reader the Process opened is closed. Calls after the first do
// nothing.
func (p *Process) Stop(grace time.Duration) {
	p.stopped.Do(func() {
		done := make(chan struct{})
		go func() { p.grpc.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-time.After(grace):
			p.grpc.Stop()
		}
		p.closeReader()
	})
}

func (p *Process) closeReader() {
	if p.ownReader {
		p.reader.Close()
	}
}
