package transportbench

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmgate/mmgate/shm"
)

const envWorker = "MMGATE_TRANSPORTBENCH_WORKER" // "<unix listen> <shm dir> keep|no"

func TestMain(m *testing.M) {
	if spec := os.Getenv(envWorker); spec != "" {
		var listen, dir, keep string
		fmt.Sscanf(spec, "%s %s %s", &listen, &dir, &keep)
		ctx, cancel := ExitOnStdinClose(context.Background(), os.Stdin)
		defer cancel()
		if err := RunWorker(ctx, WorkerConfig{Listen: []string{"127.0.0.1:0", listen}, Dir: dir, KeepFiles: keep == "keep", Prefixes: []string{"mmgate-", "mmgatebench-"}}, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// sum64Ref is the obviously-correct Sum64.
func sum64Ref(b []byte) uint64 {
	var s uint64
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		copy(w[:], b[i:])
		s += binary.LittleEndian.Uint64(w[:])
	}
	return s
}

func TestSum64AndPattern(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 31, 33, 1000, blockSize, blockSize + 24, 3*blockSize + 1024} {
		p := NewPattern(uint64(n) + 1)
		b := make([]byte, n)
		p.Fill(b)
		if got, want := Sum64(b), sum64Ref(b); got != want {
			t.Errorf("Sum64(%d bytes) = %x, want %x", n, got, want)
		}
		if n%8 == 0 {
			if got, want := p.Sum64(n), sum64Ref(b); got != want {
				t.Errorf("Pattern.Sum64(%d) = %x, want %x", n, got, want)
			}
		}
	}
	if NewPattern(1).sum == NewPattern(2).sum {
		t.Error("patterns of different seeds agree")
	}
}

func TestSummarize(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		in       []time.Duration
		med, p90 float64
	}{
		{ms(5), 5, 5},
		{ms(3, 1, 2), 2, 3},
		{ms(10, 1, 2, 3, 4, 5, 6, 7, 8, 9), 5.5, 9},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100), 6, 10},
	} {
		r := summarize(1, "x", tc.in)
		if r.MedianMS != tc.med || r.P90MS != tc.p90 {
			t.Errorf("summarize(%v) = %v / %v, want %v / %v", tc.in, r.MedianMS, r.P90MS, tc.med, tc.p90)
		}
	}
}

func startChild(t *testing.T, dir, sock string, keep bool) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	k := "no"
	if keep {
		k = "keep"
	}
	cmd.Env = append(os.Environ(), envWorker+"=unix://"+sock+" "+dir+" "+k)
	cmd.Stderr = os.Stderr
	c, err := StartChild(context.Background(), cmd, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	return c
}

func TestRunSmall(t *testing.T) {
	dir := t.TempDir()
	sockDir := t.TempDir()
	w := startChild(t, dir, filepath.Join(sockDir, "w.sock"), false)
	k := startChild(t, dir, filepath.Join(sockDir, "k.sock"), true)
	pool, err := shm.New(shm.Options{Dir: dir, Budget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	reuse, err := shm.New(shm.Options{Dir: dir, Budget: -1, Prefix: "mmgatebench-", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer reuse.Close()
	res, err := Run(context.Background(), Config{
		Sizes: []int{64 << 10, 1 << 20}, Paths: KnownPaths, Runs: 2, Warmup: 1,
		TCPAddr: w.Addrs[0], UnixAddr: w.Addrs[1], KeepAddr: k.Addrs[1], Pool: pool, ReusePool: reuse,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2*len(KnownPaths) {
		t.Fatalf("%d results", len(res))
	}
	for i, r := range res {
		if r.Path != KnownPaths[i%len(KnownPaths)] || r.MedianMS <= 0 || r.P90MS < r.MedianMS {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("segments left behind: %d", len(es))
	}
	if _, err := Run(context.Background(), Config{Sizes: []int{1000}, Paths: []string{PathMemcpy}}); err == nil {
		t.Fatal("size not a multiple of 1024 accepted")
	}
}
