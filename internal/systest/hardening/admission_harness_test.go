package hardening

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// This file holds what the admission tests share: distinct large JPEGs,
// request bodies carrying them, a sampler of the gateway's memory
// footprint, and reading labelled metrics.

// bigJPEGs makes n different w×h JPEGs (a smooth pattern that differs per
// image, so that no two share a content hash), two at a time.
func bigJPEGs(t testing.TB, n, w, h int) [][]byte {
	t.Helper()
	out := make([][]byte, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			img := image.NewRGBA(image.Rect(0, 0, w, h))
			for y := 0; y < h; y++ {
				row := img.Pix[y*img.Stride:]
				for x := 0; x < w; x++ {
					row[4*x] = uint8(x/7 + i*37)
					row[4*x+1] = uint8(y/5 + i*11)
					row[4*x+2] = uint8((x + y + i) / 9)
					row[4*x+3] = 255
				}
			}
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
				panic(err)
			}
			out[i] = buf.Bytes()
		}()
	}
	wg.Wait()
	return out
}

// imagesBody is a chat request for the demo model carrying images.
func imagesBody(t testing.TB, images [][]byte) []byte {
	t.Helper()
	parts := []map[string]any{}
	for _, im := range images {
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]string{
			"url": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(im)}})
	}
	parts = append(parts, map[string]any{"type": "text", "text": "Describe the images."})
	b, err := json.Marshal(map[string]any{"model": "qwen3-vl", "max_tokens": 8,
		"messages": []map[string]any{{"role": "user", "content": parts}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// memSampler samples the footprint of a gateway's processes and segments
// until stopped, keeping the peak.
type memSampler struct {
	dir  string
	pids []int
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	peak    procs.Footprint
	samples int
	err     error
}

func sampleMemory(dir string, every time.Duration, pids ...int) *memSampler {
	s := &memSampler{dir: dir, pids: pids, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stop:
				s.sample()
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *memSampler) sample() {
	fp, err := procs.Memory(s.dir, s.pids...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return
	}
	s.samples++
	if fp.Total() > s.peak.Total() {
		s.peak = fp
	}
}

// finish stops sampling and returns the peak and the number of samples.
func (s *memSampler) finish(t testing.TB) (procs.Footprint, int) {
	t.Helper()
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		t.Fatalf("sampling memory: %v", s.err)
	}
	return s.peak, s.samples
}

// series reads one series of the gateway's /metrics: name with exactly
// the labels given (`outcome="admitted",le="0"`), or without labels.
func series(t testing.TB, url, name, labels string) float64 {
	t.Helper()
	b, err := procs.Metrics(url)
	if err != nil {
		t.Fatal(err)
	}
	sel := regexp.QuoteMeta(name)
	if labels != "" {
		sel += regexp.QuoteMeta("{" + labels + "}")
	}
	m := regexp.MustCompile(`(?m)^` + sel + ` ([0-9.e+-]+)$`).FindStringSubmatch(b)
	if m == nil {
		t.Fatalf("metric %s{%s} missing", name, labels)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
