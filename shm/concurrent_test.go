package shm

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Many requests at once, with the janitor sweeping: accounting stays exact
// and nothing is left behind or removed early.
func TestConcurrentBatches(t *testing.T) {
	p, dir := newTestPool(t, Options{Budget: 64 << 10})
	r := Route{Mode: ModeShm, Limits: Limits{MinBytes: -1}}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				p.Sweep()
			}
		}
	}()
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				b := p.NewBatch(context.Background(), "r")
				var names []string
				for range 3 {
					x, err := b.Place(r, 4096, "image")
					if err != nil {
						t.Error(err)
						return
					}
					if x.Path() == PathShm {
						x.Bytes()[0] = byte(g)
						names = append(names, x.Segment().Name())
					}
				}
				for _, n := range names {
					if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
						t.Errorf("segment removed while held: %v", err)
					}
				}
				if i%2 == 0 {
					b.Commit()
					for _, n := range names { // the worker reads and unlinks
						os.Remove(filepath.Join(dir, n))
					}
				} else {
					b.Release()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	p.Sweep()
	if n, by := p.InUse(); n != 0 || by != 0 {
		t.Fatalf("in use %d %d", n, by)
	}
	if left := dirNames(t, dir); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
}
