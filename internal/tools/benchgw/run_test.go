package benchgw

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/tools/benchgw/fakegw"
)

// testImages returns n distinct small JPEG images.
func testImages(t *testing.T, n int) []Image {
	t.Helper()
	var out []Image
	for i := range n {
		img := image.NewRGBA(image.Rect(0, 0, 64, 48))
		for y := range 48 {
			for x := range 64 {
				img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), uint8(i * 37), 255})
			}
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		out = append(out, Image{Name: fmt.Sprintf("%02d.jpg", i), MIME: "image/jpeg", Bytes: b.Len(), DataURL: DataURL("image/jpeg", b.Bytes())})
	}
	return out
}

func TestRunCountsEverything(t *testing.T) {
	fake := fakegw.New(fakegw.Options{
		ImageDelay: 20 * time.Millisecond,
		TextDelay:  time.Millisecond,
		Fail: func(n int) int {
			if n == 3 || n == 7 {
				return http.StatusTooManyRequests
			}
			if n == 11 {
				return http.StatusUnprocessableEntity
			}
			return 0
		},
		StreamError: func(n int) bool { return n == 5 },
		Inline:      func(n int) bool { return n%4 == 1 },
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	imgs := testImages(t, 5)
	r, err := New(Options{URL: srv.URL, Images: imgs, Concurrency: 3, Requests: 16, MaxTokens: 50, NoWarmUp: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	if rep.StoppedBy != "requests" || rep.Image.Sent != 16 || rep.Image.OK != 12 || rep.Image.Failed != 4 {
		t.Errorf("stopped %q sent %d ok %d failed %d, want requests 16 12 4", rep.StoppedBy, rep.Image.Sent, rep.Image.OK, rep.Image.Failed)
	}
	want := map[string]int{"image/429/overloaded": 2, "image/422/unprocessable_media": 1, "image/200/worker_error": 1}
	got := map[string]int{}
	for _, e := range rep.Errors {
		got[fmt.Sprintf("%s/%d/%s", e.Kind, e.Status, e.Code)] = e.Count
		if e.Example == "" {
			t.Errorf("error %+v has no example", e)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("errors %v, want %v", got, want)
	}
	if rep.Errors[0].Count != 2 {
		t.Errorf("errors not sorted by count: %+v", rep.Errors)
	}
	// Image requests 1, 5, 9, 13 were inline; 3, 5, 7, 11 failed.
	if rep.Transport.ReplyInline != 3 || rep.Transport.ReplyShm != 9 || rep.Transport.ReplyUnknown != 0 {
		t.Errorf("reply transport %+v, want 9 shm 3 inline", rep.Transport)
	}
	var shmM, inlineM float64
	for _, m := range rep.Transport.Metrics {
		switch m.Path {
		case "shm":
			shmM = m.Tensors
		case "inline":
			inlineM = m.Tensors
		}
		if m.Bytes != m.Tensors*14745600 || m.Modality != "image" || m.Runtime != "mmgate-reference" {
			t.Errorf("metrics series %+v", m)
		}
	}
	// The fake counts tensors of every request it answered, including the
	// one whose stream then broke (request 5, inline).
	if shmM != 9 || inlineM != 4 {
		t.Errorf("metrics transport shm %v inline %v, want 9 and 4", shmM, inlineM)
	}
	stages := map[string]Stage{}
	var names []string
	for _, s := range rep.Stages {
		stages[s.Stage] = s
		names = append(names, s.Stage)
	}
	if strings.Join(names, ",") != "decode,normalize_patchify,tokenize,generate" {
		t.Errorf("stage order %v", names)
	}
	if d := stages["decode"]; d.Count != 13 || d.MeanMS != 10 {
		t.Errorf("decode stage %+v, want 13 × 10 ms", d)
	}
	if rep.Server.TensorCacheMisses != 13 {
		t.Errorf("cache misses %v, want 13", rep.Server.TensorCacheMisses)
	}

	if rep.TextProbe.OK < 1 || rep.TextProbe.Failed != 0 {
		t.Errorf("text probe %+v, want some successful probes", rep.TextProbe)
	}
	for _, k := range []Kind{rep.Image, rep.TextProbe} {
		l, f := k.Latency, k.TTFT
		if !(0 < l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max) || f.P50 > l.P50 || f.Count != l.Count {
			t.Errorf("distribution not ordered: %+v", k)
		}
	}
	if rep.Image.TTFT.P50 < 20 {
		t.Errorf("image TTFT p50 %v ms, below the fake's 20 ms delay", rep.Image.TTFT.P50)
	}
	if rep.ImagesPerSec <= 0 || rep.RequestsPerSec != rep.ImagesPerSec {
		t.Errorf("throughput %v / %v", rep.RequestsPerSec, rep.ImagesPerSec)
	}

	// Every image request carried one image and the text; the first five
	// used five different files, then the files cycle.
	var urls []string
	for _, q := range fake.Requests() {
		if !q.Stream || q.MaxTokens != 50 || q.Model != DefaultModel {
			t.Errorf("request %+v", q)
		}
		if len(q.Images) == 0 {
			if q.Text != DefaultProbeText {
				t.Errorf("probe text %q", q.Text)
			}
			continue
		}
		if len(q.Images) != 1 || q.Text != DefaultText {
			t.Errorf("image request with %d images and text %q", len(q.Images), q.Text)
		}
		urls = append(urls, q.Images[0])
	}
	if len(urls) != 16 {
		t.Fatalf("%d image requests reached the server, want 16", len(urls))
	}
	seen := map[string]int{}
	for _, u := range urls {
		seen[u]++
	}
	if len(seen) != 5 {
		t.Errorf("%d distinct images sent, want 5", len(seen))
	}
	for _, im := range imgs {
		if n := seen[im.DataURL]; n < 3 || n > 4 {
			t.Errorf("image %s sent %d times, want 3 or 4", im.Name, n)
		}
	}
}

func TestRunDurationCap(t *testing.T) {
	srv := httptest.NewServer(fakegw.New(fakegw.Options{ImageDelay: 50 * time.Millisecond}))
	defer srv.Close()
	r, err := New(Options{URL: srv.URL, Images: testImages(t, 2), Concurrency: 2, Requests: 1000, Duration: 200 * time.Millisecond, NoProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.StoppedBy != "duration" || rep.Image.Sent >= 1000 || rep.Image.Sent < 2 || rep.Image.Failed != 0 {
		t.Errorf("stopped by %q after %d requests (%d failed)", rep.StoppedBy, rep.Image.Sent, rep.Image.Failed)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("run took %s with a 200ms cap", el)
	}
	if rep.TextProbe.Sent != 0 || rep.TextProbe.Latency.Count != 0 {
		t.Errorf("probe ran with NoProbe: %+v", rep.TextProbe)
	}
}

func TestRunCanceled(t *testing.T) {
	srv := httptest.NewServer(fakegw.New(fakegw.Options{ImageDelay: 10 * time.Second}))
	defer srv.Close()
	r, err := New(Options{URL: srv.URL, Images: testImages(t, 1), Concurrency: 2, Requests: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	rep, err := r.Run(ctx)
	if err != nil {
		// Nothing finished before the cancel: an error is the answer.
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
		return
	}
	if rep.StoppedBy != "canceled" || rep.Image.OK != 0 {
		t.Errorf("stopped by %q, %d ok", rep.StoppedBy, rep.Image.OK)
	}
}

func TestRunMetricsUnavailable(t *testing.T) {
	fake := fakegw.New(fakegw.Options{})
	mux := http.NewServeMux()
	mux.Handle("POST /v1/chat/completions", fake)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	r, err := New(Options{URL: srv.URL + "/", Images: testImages(t, 1), Concurrency: 1, Requests: 2, NoProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.MetricsError == "" || rep.Image.OK != 2 || rep.Transport.ReplyShm != 2 {
		t.Errorf("metrics error %q, ok %d, shm %d", rep.MetricsError, rep.Image.OK, rep.Transport.ReplyShm)
	}
	if rep.Stages == nil || rep.Transport.Metrics == nil || rep.Errors == nil {
		t.Error("nil list in report")
	}
}

func TestRunUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "gw.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip("no unix sockets:", err)
	}
	srv := &http.Server{Handler: fakegw.New(fakegw.Options{})}
	go srv.Serve(l)
	defer srv.Close()
	r, err := New(Options{URL: "unix://" + sock, Images: testImages(t, 2), Concurrency: 2, Requests: 4, NoProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Image.OK != 4 || rep.MetricsError != "" {
		t.Errorf("ok %d, metrics error %q", rep.Image.OK, rep.MetricsError)
	}
}

func TestNewRefuses(t *testing.T) {
	imgs := []Image{{Name: "a", MIME: "image/jpeg", DataURL: "data:image/jpeg;base64,AA=="}}
	tests := []struct {
		opts Options
		want error
	}{
		{Options{URL: "http://10.0.0.1:8080", Images: imgs}, ErrNotLoopback},
		{Options{URL: "http://example.com", Images: imgs}, ErrNotLoopback},
		{Options{URL: "http://127.0.0.1:8080", Images: nil}, ErrNoImages},
		{Options{URL: "http://127.0.0.1:8080", Images: imgs, Concurrency: -1}, ErrInvalid},
		{Options{URL: "ftp://127.0.0.1", Images: imgs}, ErrInvalid},
		{Options{URL: "", Images: imgs}, ErrInvalid},
	}
	for _, tc := range tests {
		if _, err := New(tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("New(%q): %v, want %v", tc.opts.URL, err, tc.want)
		}
	}
	if _, err := New(Options{URL: "http://10.0.0.1:8080", Images: imgs, AllowRemote: true}); err != nil {
		t.Errorf("AllowRemote: %v", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		url, base, socket string
		ok                bool
	}{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", "", true},
		{"http://127.1.2.3:8080/", "http://127.1.2.3:8080", "", true},
		{"http://[::1]:9000/prefix/", "http://[::1]:9000/prefix", "", true},
		{"https://localhost", "https://localhost", "", true},
		{"http://LOCALHOST:1", "http://LOCALHOST:1", "", true},
		{"unix:///run/mmgate.sock", "http://unix", "/run/mmgate.sock", true},
		{"unix://relative.sock", "", "", false},
		{"http://192.168.1.1", "", "", false},
		{"http://[::ffff:10.0.0.1]:80", "", "", false},
		{"http://localhost.example.com", "", "", false},
		{"http://127.0.0.1:8080?x=1", "", "", false},
		{"http://user@127.0.0.1", "", "", false},
		{"127.0.0.1:8080", "", "", false},
	}
	for _, tc := range tests {
		ep, err := parseEndpoint(tc.url, false)
		if (err == nil) != tc.ok || ep.base != tc.base || ep.socket != tc.socket {
			t.Errorf("parseEndpoint(%q) = %+v, %v; want %q %q ok=%v", tc.url, ep, err, tc.base, tc.socket, tc.ok)
		}
	}
}

func TestLoadImages(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	var j, p bytes.Buffer
	jpeg.Encode(&j, img, nil)
	png.Encode(&p, img)
	files := map[string][]byte{"b.png": p.Bytes(), "a.jpg": j.Bytes(), "c.txt": []byte("hello"), "d.JPEG": j.Bytes()}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := LoadImages(dir)
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, im := range got {
		desc = append(desc, im.Name+" "+im.MIME)
		if !strings.HasPrefix(im.DataURL, "data:"+im.MIME+";base64,") || im.Bytes != len(files[im.Name]) {
			t.Errorf("%s: data URL %.40q, bytes %d", im.Name, im.DataURL, im.Bytes)
		}
	}
	if strings.Join(desc, "; ") != "a.jpg image/jpeg; b.png image/png; d.JPEG image/jpeg" {
		t.Errorf("loaded %v", desc)
	}
	if got[0].DataURL != "data:image/jpeg;base64,"+b64(j.Bytes()) {
		t.Error("a.jpg data URL differs from its base64")
	}
	if _, err := LoadImages(filepath.Join(dir, "sub")); !errors.Is(err, ErrNoImages) {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := LoadImages(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing dir: %v", err)
	}
}

// TestWarmUp: three text requests and one image request with a generated
// JPEG (none of the measured files) go out first and are not measured.
func TestWarmUp(t *testing.T) {
	fake := fakegw.New(fakegw.Options{})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	imgs := testImages(t, 2)
	r, err := New(Options{URL: srv.URL, Images: imgs, Concurrency: 1, Requests: 2, NoProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Image.Sent != 2 || rep.Image.OK != 2 || rep.TextProbe.Sent != 0 {
		t.Errorf("measured %+v / %+v, want 2 images and no probe", rep.Image, rep.TextProbe)
	}
	q := fake.Requests()
	if len(q) != 6 {
		t.Fatalf("%d requests reached the server, want 3 warm-up texts, 1 warm-up image, 2 measured", len(q))
	}
	for i := range 3 {
		if len(q[i].Images) != 0 || q[i].Text != DefaultProbeText {
			t.Errorf("request %d: %+v, want a warm-up text", i, q[i])
		}
	}
	if len(q[3].Images) != 1 || !strings.HasPrefix(q[3].Images[0], "data:image/jpeg;base64,") {
		t.Fatalf("request 3: %+v, want the warm-up image", q[3])
	}
	for _, im := range imgs {
		if q[3].Images[0] == im.DataURL {
			t.Error("the warm-up image is one of the measured files")
		}
	}
}

// TestRunReusesConnections checks that the clients read each stream to its
// end, so that keep-alive connections are reused: a body closed after
// [DONE] but before the chunked terminator makes net/http drop the
// connection, and every request would then pay for a new one.
func TestRunReusesConnections(t *testing.T) {
	fake := fakegw.New(fakegw.Options{ImageDelay: 5 * time.Millisecond})
	// The terminator goes out when the handler returns: [DONE] flushed
	// before a pause keeps the two apart, as on a busy server.
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fake.ServeHTTP(w, r)
		if r.URL.Path == "/v1/chat/completions" {
			w.(http.Flusher).Flush()
			time.Sleep(2 * time.Millisecond)
		}
	}))
	var conns atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	r, err := New(Options{URL: srv.URL, Images: testImages(t, 3), Concurrency: 2, Requests: 12, MaxTokens: 20,
		ProbeInterval: time.Millisecond, NoWarmUp: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Image.OK != 12 || rep.TextProbe.OK < 2 {
		t.Fatalf("%d image requests and %d probes ok, want 12 and at least 2", rep.Image.OK, rep.TextProbe.OK)
	}
	// One connection per image client, one for the probe, one for the
	// metrics reads.
	if n := conns.Load(); n > 4 {
		t.Errorf("%d connections for %d requests, want at most 4", n, 12+rep.TextProbe.Sent)
	}
}
