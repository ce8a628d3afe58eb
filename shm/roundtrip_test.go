package shm_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/tokenspeed/tensordata"
	"github.com/mmgate/mmgate/internal/tools/transportbench"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// Environment of the re-executed test binary.
const (
	envWorkerDir  = "MMGATE_SHM_TEST_WORKER_DIR"  // run as the worker on this shm dir
	envWorkerSock = "MMGATE_SHM_TEST_WORKER_SOCK" // its unix socket path
	envFaultsDir  = "MMGATE_SHM_TEST_FAULTS_DIR"  // inside a private mount namespace
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envWorkerDir); dir != "" {
		ctx, cancel := transportbench.ExitOnStdinClose(context.Background(), os.Stdin)
		defer cancel()
		err := transportbench.RunWorker(ctx, transportbench.WorkerConfig{
			Listen: []string{"127.0.0.1:0", "unix://" + os.Getenv(envWorkerSock)},
			Dir:    dir,
			Digest: transportbench.DigestSHA256,
		}, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startWorker runs the worker side in a separate process (this test binary
// re-executed) and returns a client per transport.
func startWorker(t *testing.T, dir string) map[string]schedulerpb.TokenSpeedSchedulerClient {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "w.sock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWorkerDir+"="+dir, envWorkerSock+"="+sock)
	cmd.Stderr = os.Stderr
	child, err := transportbench.StartChild(context.Background(), cmd, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Stop() })
	out := map[string]schedulerpb.TokenSpeedSchedulerClient{}
	for name, target := range map[string]string{"tcp": "passthrough:///" + child.Addrs[0], "unix": child.Addrs[1]} {
		conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		out[name] = schedulerpb.NewTokenSpeedSchedulerClient(conn)
	}
	return out
}

func sha(b []byte) []uint32 {
	h := sha256.Sum256(b)
	out := make([]uint32, 8)
	for i := range out {
		out[i] = binary.BigEndian.Uint32(h[4*i:])
	}
	return out
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// generate sends items and returns the worker's digests or its error.
func generate(c schedulerpb.TokenSpeedSchedulerClient, items ...*schedulerpb.MultimodalItem) ([]uint32, error) {
	st, err := c.Generate(context.Background(), &schedulerpb.GenerateRequest{
		RequestId: "r",
		Tokenized: &schedulerpb.TokenizedInput{InputIds: []uint32{1, 2}},
		MmInputs:  &schedulerpb.MultimodalInputs{Items: items},
	})
	if err != nil {
		return nil, err
	}
	resp, err := st.Recv()
	if err != nil {
		return nil, err
	}
	return resp.GetComplete().GetOutputIds(), nil
}

func TestRoundTripSeparateProcess(t *testing.T) {
	dir := t.TempDir()
	clients := startWorker(t, dir)
	pool, err := shm.New(shm.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	info, err := clients["unix"].GetServerInfo(context.Background(), &schedulerpb.GetServerInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	workerNS := info.GetSchedulerInfo().GetFields()["shm_namespace_id"].GetStringValue()
	if !pool.SameNamespace(workerNS) {
		t.Fatalf("namespace ids differ: worker %q, gateway %q", workerNS, pool.NamespaceID())
	}
	dtypes := []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16, tensor.Int64, tensor.Uint32}
	for _, tr := range []string{"tcp", "unix"} {
		for _, mode := range []shm.Mode{shm.ModeInline, shm.ModeShm, shm.ModeAuto} {
			for _, dt := range dtypes {
				t.Run(fmt.Sprintf("%s/%s/%s", tr, mode, dt), func(t *testing.T) {
					route := shm.Route{Mode: mode, NamespaceMatch: pool.SameNamespace(workerNS), Limits: shm.Limits{MinBytes: 1024}}
					b := pool.NewBatch(context.Background(), "r")
					defer b.Release()
					shape := []int{37, 129}
					n, _ := tensor.ByteSize(dt, shape)
					want := make([]byte, n)
					rand.Read(want)
					x, err := b.Place(route, n, "image")
					if err != nil {
						t.Fatal(err)
					}
					if wantPath := map[shm.Mode]shm.Path{shm.ModeInline: shm.PathInline, shm.ModeShm: shm.PathShm, shm.ModeAuto: shm.PathShm}[mode]; x.Path() != wantPath {
						t.Fatalf("path %v, want %v", x.Path(), wantPath)
					}
					copy(x.Bytes(), want)
					td, err := tensordata.Seal(x, dt, shape)
					if err != nil {
						t.Fatal(err)
					}
					grid := []byte{1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0}
					gx, _ := b.Place(route, len(grid), "image")
					copy(gx.Bytes(), grid)
					gtd, _ := tensordata.Seal(gx, tensor.Int64, []int{1, 3})
					got, err := generate(clients[tr], &schedulerpb.MultimodalItem{
						Modality:             commonpb.Modality_IMAGE,
						EncoderInput:         td,
						ModelSpecificTensors: map[string]*schedulerpb.TensorData{"image_grid_thw": gtd},
						Placeholders:         []*schedulerpb.PlaceholderRange{{Offset: 0, Length: 2}},
					})
					if err != nil {
						t.Fatal(err)
					}
					b.Commit()
					if wantIDs := append(sha(want), sha(grid)...); !slices.Equal(got, wantIDs) {
						t.Fatalf("worker read different bytes")
					}
					if left := listDir(t, dir); len(left) != 0 {
						t.Fatalf("files left behind: %v", left)
					}
				})
			}
		}
	}

	// The worker answers with an error before taking the request: the
	// gateway releases the segment.
	t.Run("worker error releases", func(t *testing.T) {
		b := pool.NewBatch(context.Background(), "bad")
		x, err := b.Place(shm.Route{Mode: shm.ModeShm, Limits: shm.Limits{MinBytes: -1}}, 4096, "image")
		if err != nil || x.Path() != shm.PathShm {
			t.Fatal(err)
		}
		td, _ := tensordata.Seal(x, tensor.Float32, []int{1024})
		// The first item is refused, so the worker never reaches the second.
		bad := &schedulerpb.TensorData{Shape: []uint32{3}, Dtype: "int64", Payload: &schedulerpb.TensorData_Inline{Inline: make([]byte, 8)}}
		_, err = generate(clients["unix"], &schedulerpb.MultimodalItem{EncoderInput: bad}, &schedulerpb.MultimodalItem{EncoderInput: td})
		if status.Code(err) != codes.InvalidArgument {
			t.Fatalf("worker answered %v", err)
		}
		if len(listDir(t, dir)) != 1 {
			t.Fatal("segment gone before release")
		}
		b.Release()
		if left := listDir(t, dir); len(left) != 0 {
			t.Fatalf("release left %v", left)
		}
	})
}
