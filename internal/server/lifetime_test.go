package server_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mmgate/mmgate/engine"
	engines "github.com/mmgate/mmgate/engine/builtin"
	families "github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/refworker/refworkertest"
	"github.com/mmgate/mmgate/shm"
)

// This file runs the gateway for real — server, pipeline, engine and a
// reference worker over gRPC — on the demo model: the request-body
// lifetime rule (package doc) and the one front half.

// gateway is the real stack on the demo model.
type gateway struct {
	dir  string // the model folder
	pipe *pipeline.Pipeline
}

// newGateway runs the stack with a reference worker serving protocol
// (refworker.TokenSpeed, VLLM or SGLang).
func newGateway(t *testing.T, protocol string) *gateway {
	t.Helper()
	dir, err := demomodel.Materialize(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	shmDir := t.TempDir()
	pool, err := shm.New(shm.Options{Dir: shmDir, Budget: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	url := refworkertest.Start(t, dir, shmDir, func(o *refworker.Options) { o.Protocol = protocol })
	eng, err := engine.New(engine.Options{Protocols: engines.Protocols(), Workers: []engine.WorkerConfig{{URL: url}}, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	// Media work on other threads, as in mmgate serve: what reads the
	// body's strings runs while the handler waits.
	heavy, err := cpupool.New(cpupool.Options{Slots: 2, Nice: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(heavy.Close)
	dec, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fetcher, err := fetch.New(fetch.Policy{}, fetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fetcher.Close() })
	// No tensor cache: every image is preprocessed from its request's bytes.
	pipe, err := pipeline.New(pipeline.Options{Engine: eng, Fetcher: fetcher, Decoder: imageprep.ScratchDecoder(dec),
		Families: families.New(), ModelDir: dir, Heavy: heavy, CacheBytes: -1, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	return &gateway{dir: dir, pipe: pipe}
}

// serve runs an HTTP server in front of the pipeline, poisoning released
// body buffers when told to.
func (g *gateway) serve(t *testing.T, poison bool) string {
	t.Helper()
	heavy, err := cpupool.New(cpupool.Options{Slots: 1, Nice: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(heavy.Close)
	srv, err := server.New(server.Options{Backend: g.pipe, Heavy: heavy.Run})
	if err != nil {
		t.Fatal(err)
	}
	if poison {
		server.PoisonReleasedBodies(srv)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts.URL
}

// noiseImage is a w×h picture of seeded noise, encoded as a JPEG or PNG
// data: URL (noise keeps it large: well over the sizes that are lifted out
// of the JSON and pooled).
func noiseImage(t *testing.T, seed uint64, w, h int, asPNG bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.UintN(256))
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	img.Set(0, 0, color.RGBA{R: uint8(seed), A: 255})
	var buf bytes.Buffer
	mime := "image/jpeg"
	var err error
	if asPNG {
		mime, err = "image/png", png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		t.Fatal(err)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// lifetimeRequests are chat requests with one or two images (JPEG and PNG,
// several sizes) or text only (one with a body large enough to be pooled),
// streamed or not.
func lifetimeRequests(t *testing.T) []string {
	t.Helper()
	msg := func(stream bool, parts ...string) string {
		return fmt.Sprintf(`{"model":%q,"stream":%v,"max_tokens":400,"messages":[{"role":"user","content":[%s]}]}`,
			demomodel.Name, stream, strings.Join(parts, ","))
	}
	text := func(s string) string { return `{"type":"text","text":` + strconvQuote(s) + `}` }
	image := func(url string) string {
		// From 16 KiB on, a media string is lifted out of the JSON: it
		// shares the body's memory.
		if len(url) < 16<<10 {
			t.Fatalf("a %d-byte data: URL would not be lifted", len(url))
		}
		return `{"type":"image_url","image_url":{"url":"` + url + `"}}`
	}
	var reqs []string
	for i := range 12 {
		w, h := 128+32*(i%4), 96+48*(i%3)
		parts := []string{image(noiseImage(t, uint64(i), w, h, i%3 == 0)), text(fmt.Sprintf("Describe picture %d.", i))}
		if i%4 == 1 {
			parts = append([]string{image(noiseImage(t, uint64(100+i), h, w, i%2 == 0))}, parts...)
		}
		reqs = append(reqs, msg(i%2 == 0, parts...))
	}
	reqs = append(reqs,
		msg(false, text("Say hello.")),
		msg(true, text("Say hello, streaming.")),
		msg(false, text(strings.Repeat("A long question about nothing in particular. ", 600))),
	)
	return reqs
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ask sends a chat request and returns the answer's text (every choice's
// content, streamed or not) or the error body.
func ask(url, body string) string {
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return "transport error: " + err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("status %d: %s", resp.StatusCode, b)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var c openai.ChatCompletion
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || len(c.Choices) != 1 || c.Choices[0].Message.Content == nil {
			return fmt.Sprintf("bad answer (%v)", err)
		}
		return *c.Choices[0].Message.Content
	}
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c openai.ChatCompletion
		if err := json.Unmarshal([]byte(data), &c); err != nil || len(c.Choices) == 0 {
			return "bad chunk: " + data
		}
		if d := c.Choices[0].Delta; d != nil && d.Content != nil {
			text.WriteString(*d.Content)
		}
	}
	return text.String()
}

// askAll sends every request from 4 clients at once, each request twice,
// and returns the answers by request.
func askAll(url string, reqs []string) [][2]string {
	out := make([][2]string, len(reqs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for k := range next {
				out[k/2][k%2] = ask(url, reqs[k/2])
			}
		})
	}
	for k := range 2 * len(reqs) {
		next <- k
	}
	close(next)
	wg.Wait()
	return out
}

// TestBodyLifetime guards the lifetime rule: chat requests with images
// (data: URLs, lifted out of the JSON, so sharing the pooled body) and text,
// sent concurrently through the real server, pipeline and reference worker
// with every released body buffer overwritten at once, get the same
// answers — the worker's digests of the prompt and of every tensor it
// received — as without. With an SGLang worker the gateway also keeps each
// image's encoded bytes until the worker has the request (its items are
// joined, two images in one tensor): the worker's digests of those must be
// the client's images.
func TestBodyLifetime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole gateway")
	}
	for _, proto := range []string{refworker.TokenSpeed, refworker.SGLang} {
		t.Run(proto, func(t *testing.T) {
			g := newGateway(t, proto)
			reqs := lifetimeRequests(t)
			want := askAll(g.serve(t, false), reqs)
			for i, w := range want {
				if w[0] != w[1] || !strings.HasPrefix(w[0], "prompt: ") {
					t.Fatalf("request %d without poisoning: %q, then %q", i, w[0], w[1])
				}
				if n := strings.Count(reqs[i], `"type":"image_url"`); strings.Count(w[0], "\nimage ") != n {
					t.Fatalf("request %d: the worker reports %q for %d images", i, w[0], n)
				}
				if got, want := encodedDigests(w[0]), imageDigests(t, reqs[i]); proto == refworker.SGLang && !slices.Equal(got, want) {
					t.Fatalf("request %d: encoded bytes %v at the worker, sent %v", i, got, want)
				}
			}
			got := askAll(g.serve(t, true), reqs)
			for i := range reqs {
				for k := range 2 {
					if got[i][k] != want[i][0] {
						t.Errorf("request %d, poisoned (%d): %q\nwant %q", i, k, got[i][k], want[i][0])
					}
				}
			}
		})
	}
}

var (
	dataURLPayload = regexp.MustCompile(`;base64,([A-Za-z0-9+/=]+)`)
	encodedNote    = regexp.MustCompile(`encoded \d+ bytes, sha256 ([0-9a-f]{64})`)
)

// imageDigests are the SHA-256 digests of the images a request body sends,
// in order.
func imageDigests(t *testing.T, body string) []string {
	t.Helper()
	out := []string{}
	for _, m := range dataURLPayload.FindAllStringSubmatch(body, -1) {
		b, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		out = append(out, hex.EncodeToString(sum[:]))
	}
	return out
}

// encodedDigests are the digests of the encoded image bytes a worker
// reports, in order.
func encodedDigests(reply string) []string {
	out := []string{}
	for _, m := range encodedNote.FindAllStringSubmatch(reply, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestGatewayPromptIsRendered: the gateway sends the worker the very ids
// that render gives for the same request (one front half), images
// included, and render reports one content hash per image.
func TestGatewayPromptIsRendered(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole gateway")
	}
	g := newGateway(t, refworker.TokenSpeed)
	url := g.serve(t, false)
	dec, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := pipeline.LoadAssets(g.dir, pipeline.AssetOptions{Decoder: imageprep.MediaDecoder(dec)})
	if err != nil {
		t.Fatal(err)
	}
	fetcher, err := fetch.New(fetch.Policy{Schemes: []string{"data"}}, fetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := pipeline.NewRenderer(a, pipeline.RenderOptions{Fetcher: fetcher, InlineOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range lifetimeRequests(t) {
		req, err := openai.ParseChat([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Render(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]byte, 4*len(res.IDs))
		for k, id := range res.IDs {
			binary.LittleEndian.PutUint32(ids[4*k:], id)
		}
		sum := sha256.Sum256(ids)
		want := fmt.Sprintf("prompt: %d tokens, sha256 %s\n", len(res.IDs), hex.EncodeToString(sum[:]))
		if got := ask(url, body); !strings.HasPrefix(got, want) {
			t.Errorf("request %d: the worker got %q\nrender gives %q", i, got, want)
		}
		hashes := map[string]bool{}
		for _, m := range res.Media {
			hashes[hex.EncodeToString(m.Hash)] = true
		}
		if n := strings.Count(body, `"type":"image_url"`); len(res.Media) != n || len(hashes) != n {
			t.Errorf("request %d: %d items, %d distinct hashes for %d images", i, len(res.Media), len(hashes), n)
		}
	}
}
