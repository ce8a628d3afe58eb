package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/shm"
)

func TestConfigWorkers(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	doc := "workers:\n" +
		"  - url: unix:///run/w0.sock\n    mm_transport: shm\n    mm_shm_min_bytes: 1KiB\n    encoder_dtype: float16\n    runtime: tokenspeed\n" +
		"  - url: grpc://10.0.0.7:50051\n"
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	f := &serveFlags{shmMinBytes: 65536, maxMessageSize: 1 << 20}
	got, err := configWorkers(cfg, &serveConfig{mode: shm.ModeAuto}, f)
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.WorkerConfig{
		{URL: "unix:///run/w0.sock", Transport: shm.ModeShm, ShmMinBytes: 1024, EncoderDType: "float16", Runtime: "tokenspeed", MaxMessageSize: 1 << 20},
		{URL: "grpc://10.0.0.7:50051", Transport: shm.ModeAuto, ShmMinBytes: 65536, MaxMessageSize: 1 << 20},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("workers\n got %+v\nwant %+v", got, want)
	}
}
