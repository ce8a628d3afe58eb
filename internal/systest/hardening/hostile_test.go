package hardening

import (
	"bytes"
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// hostileN is how many hostile connections each scenario opens (300 in the
// default suite; the larger runs of docs/reliability.md pass a larger one).
var hostileN = flag.Int("hostile.n", 300, "hostile connections per scenario")

// TestHostileDrippingBodies: connections that send their headers and then
// drip the body a byte a second hold no processing slot; with the default
// limits an ordinary client on another address is answered 200 within 1 s
// throughout, and every dripping connection is cut (408 or closed) within
// 20 s.
func TestHostileDrippingBodies(t *testing.T) {
	shm := shmDir(t)
	url, gw := startGateway(t, shm, "--embedded-worker")
	base := takeBaseline(t, url)
	conns := dialHostile(t, url, *hostileN, 0)
	for _, c := range conns {
		c.Write([]byte(headers(len(textBody))))
	}
	cuts := dripUntilCut(t, url, conns, textBody, 25*time.Second, "dripping bodies")
	var slowest time.Duration
	statuses := map[int]int{}
	for i, r := range cuts {
		statuses[r.status]++
		slowest = max(slowest, r.after)
		if (r.status != 408 && r.status != 0) || r.after > 20*time.Second {
			t.Errorf("dripping connection %d: status %d after %v (%v), want 408 or closed within 20 s", i, r.status, r.after, r.err)
		}
	}
	t.Logf("%d dripping connections: statuses %v, the last cut after %v", len(cuts), statuses, slowest.Round(time.Millisecond))
	if n := counter(t, url, "mmgate_http_refused_total", `reason="body_timeout"`); n != float64(len(conns)) {
		t.Errorf("body_timeout refusals %v, want %d", n, len(conns))
	}
	if !strings.Contains(gw.Stderr.String(), `msg="client cut" reason=body_timeout client=127.0.0.1`) {
		t.Error("no log line for the cuts with the client address")
	}
	backToBaseline(t, gw, url, shm, base, 256<<20)
}

// streamBody is a streaming chat request with an image (its tensor goes
// through shared memory) and large logprob chunks, so that a client that
// does not read fills the socket buffers after a few hundred tokens.
func streamBody(t *testing.T) string {
	img := base64.StdEncoding.EncodeToString(pngOf(t, 128, 128))
	return `{"model":"qwen3-vl","stream":true,"max_tokens":60000,"ignore_eos":true,"logprobs":true,"top_logprobs":20,` +
		`"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + img + `"}},` +
		`{"type":"text","text":"Describe this image at length."}]}]}`
}

// TestHostileNonReadingStreams: streaming clients that never read are cut
// after --client-stall-timeout: ordinary requests are served again within
// 10 s of the streams stalling, the in-flight count falls back under 10,
// the worker receives the aborts, the gateway's RSS stays under 1 GiB and
// nothing is left in shared memory.
func TestHostileNonReadingStreams(t *testing.T) {
	shm := shmDir(t)
	wurl, worker := procs.Worker(t, mmgateBin, shm, "--model", modelDir)
	url, gw := startGateway(t, shm, "--worker", wurl, "--client-stall-timeout", "5s")
	base := takeBaseline(t, url)
	var peakRSS atomic.Int64
	stopRSS := watchRSS(t, url, &peakRSS)
	body := streamBody(t)
	conns := dialHostile(t, url, *hostileN, 4096)
	for _, c := range conns {
		c.Write([]byte(headers(len(body)) + body))
	}
	sent := time.Now()
	// The ordinary client starts once the streams hold every slot.
	waitFor(t, gw, func() bool { return gauge(t, url, "mmgate_http_in_flight_requests") == 256 }, "the slots taken")
	p := startProber(url, 200*time.Millisecond)
	// The streams fill their buffers and stall; 5 s later they are cut and
	// their slots free. (Filling takes the worker's CPU: on a busy machine,
	// a while.)
	stalls := func() float64 { return counter(t, url, "mmgate_http_refused_total", `reason="client_stall"`) }
	if err := procs.Poll(context.Background(), gw, time.Minute, "the non-reading streams cut, in-flight under 10", func() bool {
		return stalls() > 0 && gauge(t, url, "mmgate_http_in_flight_requests") < 10
	}); err != nil {
		t.Fatal(err)
	}
	cutAt := time.Since(sent)
	// Every stream was cut, or refused at once (over --max-in-flight;
	// the ordinary client's refusals add to these).
	if n, full := stalls(), counter(t, url, "mmgate_http_refused_total", `reason="in_flight"`); n+full < float64(len(conns)) {
		t.Errorf("%v streams cut and %v refused, of %d", n, full, len(conns))
	}
	time.Sleep(time.Second)
	samples := p.finish()
	stopRSS()
	recovered := recovery(samples, sent)
	t.Logf("%d non-reading streams: %d cut %v after they were sent; ordinary requests all 200 from %v on (%s); peak RSS %d MiB",
		len(conns), int(counter(t, url, "mmgate_http_refused_total", `reason="client_stall"`)), cutAt.Round(time.Millisecond),
		recovered.Round(time.Millisecond), summary(samples), peakRSS.Load()>>20)
	if recovered < 0 || recovered > cutAt+2*time.Second {
		t.Errorf("ordinary requests not served again after the cuts (%s)", summary(samples))
	}
	if peakRSS.Load() >= 1<<30 {
		t.Errorf("gateway RSS reached %d MiB", peakRSS.Load()>>20)
	}
	logCutLine(t, gw)
	aborts := strings.Count(worker.Stderr.String(), "msg=abort")
	if aborts < int(stalls()) {
		t.Errorf("the worker received %d aborts, want one per cut stream", aborts)
	}
	for _, c := range conns {
		c.Close()
	}
	backToBaseline(t, gw, url, shm, base, 512<<20)
}

// logCutLine logs the gateway's first cut line.
func logCutLine(t *testing.T, gw *procs.Proc) {
	for _, l := range strings.Split(gw.Stderr.String(), "\n") {
		if strings.Contains(l, `msg="client cut"`) {
			t.Logf("first cut: %s", l)
			return
		}
	}
}

// recovery is how long after start the ordinary requests were all 200
// again: the time of the first sample after the last refused one (-1: the
// last was refused).
func recovery(ss []sample, start time.Time) time.Duration {
	last := -1
	for i, s := range ss {
		if s.status != 200 {
			last = i
		}
	}
	switch {
	case last == len(ss)-1:
		return -1
	case last < 0:
		return 0
	}
	return ss[last+1].at.Sub(start)
}

// watchRSS polls the gateway's RSS every 200 ms into peak until stopped.
func watchRSS(t *testing.T, url string, peak *atomic.Int64) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			if v, ok := metric(url, "process_resident_memory_bytes"); ok && int64(v) > peak.Load() {
				peak.Store(int64(v))
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}

// TestHostileConnectionFlood: idle connections by the thousand. Below
// --max-connections the ordinary client is served at once; over it, new
// connections wait in the backlog until the header timeout frees the idle
// ones, and the open connections never exceed the bound.
func TestHostileConnectionFlood(t *testing.T) {
	shm := shmDir(t)
	url, gw := startGateway(t, shm, "--embedded-worker", "--max-connections", fmt.Sprint(4**hostileN), "--header-timeout", "2s")
	base := takeBaseline(t, url)
	p := startProber(url, 100*time.Millisecond)
	flood := dialHostile(t, url, 3**hostileN, 0)
	time.Sleep(500 * time.Millisecond)
	if open := gauge(t, url, "mmgate_http_open_connections"); open < float64(len(flood)) {
		t.Errorf("%v connections open, want the %d of the flood", open, len(flood))
	}
	cuts := awaitCuts(flood, 10*time.Second)
	servedWithin(t, "connection flood under the bound", p.finish(), time.Second)
	t.Logf("flood of %d idle connections (bound %d): closed by the header timeout", len(flood), 4**hostileN)
	for i, r := range cuts {
		if r.status != 0 || r.after > 5*time.Second {
			t.Fatalf("idle connection %d: status %d after %v, want closed by the 2 s header timeout", i, r.status, r.after)
		}
	}
	// Over the bound: 5n connections against 4n.
	over := dialHostile(t, url, 5**hostileN, 0)
	time.Sleep(500 * time.Millisecond)
	if open := gauge(t, url, "mmgate_http_open_connections"); open > float64(4**hostileN)+2 {
		t.Errorf("%v connections open over the bound of %d", open, 4**hostileN)
	}
	fresh := newClient(ordinarySource)
	fresh.Transport.(interface{ CloseIdleConnections() }).CloseIdleConnections()
	q := &prober{url: url, client: fresh}
	s := q.once()
	if s.status != 200 || s.latency > 2*time.Second+2*time.Second {
		t.Errorf("a new connection while the bound is reached: %d after %v, want 200 once the header timeout frees room", s.status, s.latency)
	}
	t.Logf("flood of %d (bound %d): a new ordinary connection served after %v; %v waits at the bound",
		len(over), 4**hostileN, s.latency.Round(time.Millisecond), gauge(t, url, "mmgate_http_connection_limit_waits_total"))
	awaitCuts(over, 15*time.Second)
	for _, c := range append(flood, over...) {
		c.Close()
	}
	fresh.CloseIdleConnections()
	backToBaseline(t, gw, url, shm, base, 256<<20)
}

// TestHostileSlowHeaders: connections that send their headers a byte a
// second are closed by the header timeout while the ordinary client is
// served.
func TestHostileSlowHeaders(t *testing.T) {
	shm := shmDir(t)
	url, gw := startGateway(t, shm, "--embedded-worker", "--header-timeout", "2s")
	base := takeBaseline(t, url)
	conns := dialHostile(t, url, *hostileN, 0)
	cuts := dripUntilCut(t, url, conns, headers(len(textBody)), 10*time.Second, "slow headers")
	var slowest time.Duration
	for i, r := range cuts {
		slowest = max(slowest, r.after)
		if r.status == -1 || r.after > 4*time.Second {
			t.Fatalf("slow-header connection %d: status %d after %v, want closed by the 2 s header timeout", i, r.status, r.after)
		}
	}
	t.Logf("%d slow-header connections closed, the last after %v", len(cuts), slowest.Round(time.Millisecond))
	backToBaseline(t, gw, url, shm, base, 256<<20)
}

// TestHostileSlowReaders: a client that reads its stream one byte a
// second, and one that never reads a large non-streaming answer, are cut
// by --client-stall-timeout; the ordinary client is served meanwhile.
func TestHostileSlowReaders(t *testing.T) {
	shm := shmDir(t)
	url, gw := startGateway(t, shm, "--embedded-worker", "--client-stall-timeout", "3s", "--shm-ttl", "1s")
	base := takeBaseline(t, url)
	conns := dialHostile(t, url, 2, 4096)
	stream := streamBody(t)
	whole := strings.Replace(strings.Replace(stream, `"stream":true`, `"stream":false`, 1), `"max_tokens":60000`, `"max_tokens":8000`, 1)
	conns[0].Write([]byte(headers(len(stream)) + stream))
	conns[1].Write([]byte(headers(len(whole)) + whole))
	p := startProber(url, 100*time.Millisecond)
	// The first reads a byte a second.
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		b := make([]byte, 1)
		for {
			if _, err := conns[0].Read(b); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	sent := time.Now()
	waitFor(t, gw, func() bool {
		return counter(t, url, "mmgate_http_refused_total", `reason="client_stall"`) == 2
	}, "both slow readers cut")
	t.Logf("both slow readers cut within %v of their requests", time.Since(sent).Round(100*time.Millisecond))
	for _, l := range strings.Split(gw.Stderr.String(), "\n") {
		if strings.Contains(l, `msg="client cut"`) {
			t.Log(l[strings.Index(l, "detail="):])
		}
	}
	close(stop)
	<-stopped
	servedWithin(t, "slow readers", p.finish(), time.Second)
	if n := strings.Count(gw.Stderr.String(), `msg="client cut" reason=client_stall client=127.0.0.1`); n != 2 {
		t.Errorf("%d cut log lines, want 2", n)
	}
	for _, c := range conns {
		c.Close()
	}
	backToBaseline(t, gw, url, shm, base, 256<<20)
}

// TestHostileGreedyClient: a client over its per-client rate and
// concurrency gets 429 with Retry-After while a client on another address
// is served; a queue absorbs a burst over --max-in-flight.
func TestHostileGreedyClient(t *testing.T) {
	shm := shmDir(t)
	url, gw := startGateway(t, shm, "--embedded-worker", "--client-rate", "20", "--client-burst", "5", "--client-max-in-flight", "2")
	base := takeBaseline(t, url)
	greedy := newClient("127.0.0.3")
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	p := startProber(url, 100*time.Millisecond)
	retryAfter := map[string]bool{} // code and Retry-After of the 429s
	record := func(r answer) {
		mu.Lock()
		defer mu.Unlock()
		codes[r.status]++
		if r.status == 429 {
			retryAfter[fmt.Sprintf("%s retry-after=%d", r.code, r.retryAfter)] = true
		}
	}
	holdSlots(t, greedy, url, 2, func() {
		// Both of its slots held: a third request is refused for
		// concurrency, whatever the timing of the burst below.
		r, _ := postFrom(greedy, url, textBody)
		record(r)
	})
	waitFor(t, gw, func() bool { return gauge(t, url, "mmgate_http_in_flight_requests") < 1 }, "the held streams ended")
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
				r, _ := postFrom(greedy, url, textBody)
				record(r)
			}
		}()
	}
	wg.Wait()
	servedWithin(t, "greedy client", p.finish(), time.Second)
	rate := counter(t, url, "mmgate_http_refused_total", `reason="rate"`)
	conc := counter(t, url, "mmgate_http_refused_total", `reason="client_in_flight"`)
	t.Logf("greedy client: statuses %v, 429s %v; refused for rate %v, for concurrency %v", codes, retryAfter, rate, conc)
	// 5 at once, then 20 a second for 3 s; a few more may pass as the
	// counting is per request start.
	if codes[200] > 5+20*4 || codes[429] == 0 || rate == 0 || conc == 0 || len(codes) != 2 {
		t.Errorf("greedy client: statuses %v, refusals rate %v concurrency %v", codes, rate, conc)
	}
	for k := range retryAfter {
		if k != "rate_limit_exceeded retry-after=1" {
			t.Errorf("a 429 of the greedy client: %s, want rate_limit_exceeded with Retry-After 1", k)
		}
	}
	greedy.CloseIdleConnections()
	backToBaseline(t, gw, url, shm, base, 256<<20)
}

// TestQueueAbsorbsBurst: with --queue-timeout a burst over --max-in-flight
// waits for slots instead of being refused; a wait longer than the timeout
// ends in 503 queue_timeout with Retry-After.
func TestQueueAbsorbsBurst(t *testing.T) {
	shm := shmDir(t)
	wurl, _ := procs.Worker(t, mmgateBin, shm, "--model", modelDir, "--token-delay", "20ms")
	burst := func(queue string) map[string]int {
		url, _ := startGateway(t, shm, "--worker", wurl, "--max-in-flight", "2", "--queue-timeout", queue)
		body := []byte(`{"model":"qwen3-vl","max_tokens":10,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]}`)
		var wg sync.WaitGroup
		var mu sync.Mutex
		got := map[string]int{}
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := postFrom(newClient(ordinarySource), url, string(body))
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					got[err.Error()]++
					return
				}
				key := fmt.Sprint(r.status)
				if r.status != 200 {
					key += " " + r.code + " retry-after=" + fmt.Sprint(r.retryAfter)
				}
				got[key]++
			}()
		}
		wg.Wait()
		return got
	}
	if got := burst("30s"); got["200"] != 8 {
		t.Errorf("8 requests over 2 slots with a 30 s queue: %v, want all 200", got)
	} else {
		t.Logf("with a queue: %v", got)
	}
	got := burst("100ms")
	if got["503 queue_timeout retry-after=1"] == 0 || got["200"] == 0 || got["503 queue_timeout retry-after=1"]+got["200"] != 8 {
		t.Errorf("8 requests over 2 slots with a 100 ms queue: %v, want some 200 and the rest 503 queue_timeout", got)
	} else {
		t.Logf("with a 100 ms queue: %v", got)
	}
}

// answer is a response with its Retry-After.
type answer struct {
	apiResult
	retryAfter int
}

// postFrom sends body with client and reads the whole answer.
// longTextStream is a text-only chat whose stream outlasts any test (no
// tensors, so no shared memory is left behind when it is cut).
const longTextStream = `{"model":"qwen3-vl","stream":true,"max_tokens":60000,"ignore_eos":true,"logprobs":true,"top_logprobs":20,` +
	`"messages":[{"role":"user","content":"Write at length."}]}`

// holdSlots opens n streaming chats from c that it does not read (each
// holds a processing slot of c's client until its connection closes), runs
// during, then closes them.
func holdSlots(t *testing.T, c *http.Client, url string, n int, during func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range n {
		req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/chat/completions", strings.NewReader(longTextStream))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("held stream: %v", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("held stream: status %d", resp.StatusCode)
		}
	}
	during()
}

func postFrom(c *http.Client, url, body string) (answer, error) {
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	a := answer{apiResult: apiResult{status: resp.StatusCode, body: b.Bytes(), code: errorCode(b.Bytes())}}
	fmt.Sscan(resp.Header.Get("Retry-After"), &a.retryAfter)
	return a, err
}
