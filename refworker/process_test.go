package refworker

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/mmgate/mmgate/internal/demomodel"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

// Open loads the folder's tokenizer and opens a reader of its own; the
// Process serves the protocol until Stop, which ends Serve.
func TestProcess(t *testing.T) {
	model, err := demomodel.Materialize(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(ProcessOptions{Options: Options{ModelDir: model, ServedModelName: "demo"}, ShmDir: t.TempDir(), KeepShm: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.NamespaceID() == "" {
		t.Error("no namespace id")
	}
	sock := filepath.Join(t.TempDir(), "w.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(l) }()
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := schedulerpb.NewTokenSpeedSchedulerClient(conn)
	mi, err := c.GetModelInfo(context.Background(), &schedulerpb.GetModelInfoRequest{})
	if err != nil || mi.GetServedModelName() != "demo" {
		t.Fatalf("model info: %v %v", mi, err)
	}
	si, err := c.GetServerInfo(context.Background(), &schedulerpb.GetServerInfoRequest{})
	if err != nil || !si.GetSchedulerInfo().GetFields()["shm_keep_after_read"].GetBoolValue() {
		t.Errorf("KeepShm not advertised: %v %v", si, err)
	}
	p.Stop(time.Second)
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after Stop")
	}
}

func TestProcessOptions(t *testing.T) {
	if _, err := Open(ProcessOptions{}); !errors.Is(err, ErrOptions) {
		t.Errorf("no model folder: %v", err)
	}
	if _, err := Open(ProcessOptions{Options: Options{ModelDir: t.TempDir()}}); err == nil {
		t.Error("a folder without a tokenizer was accepted")
	}
	model, err := demomodel.Materialize(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ProcessOptions{Options: Options{ModelDir: model, Protocol: "carrier-pigeon"}, ShmDir: t.TempDir()}); !errors.Is(err, ErrOptions) {
		t.Errorf("unknown protocol: %v", err)
	}
}

// ServeUntil returns nil when its context ends, and Serve's error when
// serving fails first.
func TestServeUntil(t *testing.T) {
	model, err := demomodel.Materialize(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(ProcessOptions{Options: Options{ModelDir: model}, ShmDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "w.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.ServeUntil(ctx, l); err != nil {
		t.Errorf("context ended: %v, want nil", err)
	}
	closed, err := net.Listen("unix", filepath.Join(t.TempDir(), "c.sock"))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	q, err := Open(ProcessOptions{Options: Options{ModelDir: model}, ShmDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(time.Second)
	if err := q.ServeUntil(context.Background(), closed); err == nil {
		t.Error("closed listener: nil error")
	}
}
