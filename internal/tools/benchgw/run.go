package benchgw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Runner holds the prepared request bodies and the client of one benchmark.
type Runner struct {
	opts   Options
	ep     endpoint
	client *http.Client
	// probeClient sends the text probes over a connection of their own, as
	// a separate text-only client would: sharing the image load's pool, a
	// probe found every idle connection taken now and then and measured a
	// fresh connection instead.
	probeClient   *http.Client
	bodies        [][]byte // one image request body per image file
	probe         []byte   // the text-only probe's body
	warmImageBody []byte   // the warm-up image request's body; nil without warm-up
}

// New validates opts, builds every request body and the HTTP client.
func New(opts Options) (*Runner, error) {
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	opts.setDefaults()
	ep, err := parseEndpoint(opts.URL, opts.AllowRemote)
	if err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	r := &Runner{opts: opts, ep: ep, client: opts.Client, probeClient: opts.Client}
	if r.client == nil {
		r.client = newClient(ep, opts.Concurrency+2)
		r.probeClient = newClient(ep, 1)
	}
	for _, im := range opts.Images {
		b, err := imageBody(opts, im.DataURL)
		if err != nil {
			return nil, err
		}
		r.bodies = append(r.bodies, b)
	}
	if !opts.NoWarmUp {
		if r.warmImageBody, err = warmImageBody(opts); err != nil {
			return nil, err
		}
	}
	if r.probe, err = probeBody(opts); err != nil {
		return nil, err
	}
	return r, nil
}

// imageBody is the chat request carrying one image (a data: URL) and the
// text part.
func imageBody(o Options, dataURL string) ([]byte, error) {
	b, err := json.Marshal(chatRequest{
		Model: o.Model, MaxTokens: o.MaxTokens, Stream: true,
		Messages: []Message{{Role: "user", Content: []Part{
			{Type: "image_url", ImageURL: &ImageURL{URL: dataURL}},
			{Type: "text", Text: o.Text},
		}}},
	})
	if err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	return b, nil
}

// probeBody is the text-only probe's chat request.
func probeBody(o Options) ([]byte, error) {
	b, err := json.Marshal(chatRequest{
		Model: o.Model, MaxTokens: o.MaxTokens, Stream: true,
		Messages: []Message{{Role: "user", Content: o.ProbeText}},
	})
	if err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	return b, nil
}

// chatRequest is the OpenAI chat completion request the runner sends.
type chatRequest struct {
	Model     string    `json:"model"`
	Messages  []Message `json:"messages"`
	MaxTokens int       `json:"max_tokens"`
	Stream    bool      `json:"stream"`
}

// Message is one chat message as the load tools send it.
type Message struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // string or []Part
}

// Part is one content part of a Message.
type Part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is an image_url part's URL.
type ImageURL struct {
	URL string `json:"url"`
}

// newClient returns a client keeping up to conns connections to the gateway.
func newClient(ep endpoint, conns int) *http.Client {
	tr := &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		WriteBufferSize:     256 << 10,
		ReadBufferSize:      32 << 10,
	}
	d := &net.Dialer{Timeout: 10 * time.Second}
	if ep.socket != "" {
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", ep.socket)
		}
	} else {
		tr.DialContext = d.DialContext
	}
	return &http.Client{Transport: tr}
}

// outcome is one finished request.
type outcome struct {
	probe   bool
	latency time.Duration
	ttft    time.Duration // 0 when no content arrived
	status  int           // HTTP status; 0 when none was read
	code    string        // "" on success
	message string
	shm     int
	inline  int
}

func (o *outcome) ok() bool { return o.code == "" }

// do sends one streaming request and reads the whole reply.
func (r *Runner) do(ctx context.Context, body []byte, probe bool) outcome {
	out := outcome{probe: probe}
	ctx, cancel := context.WithTimeout(ctx, r.opts.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.ep.base+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		out.code, out.message = "client", err.Error()
		return out
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if r.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.opts.APIKey)
	}
	client := r.client
	if probe {
		client = r.probeClient
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		out.latency = time.Since(start)
		out.code, out.message = networkCode(ctx, err), err.Error()
		return out
	}
	defer resp.Body.Close()
	out.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		out.latency = time.Since(start)
		var e struct {
			Error *apiError `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error != nil {
			out.code, out.message = e.Error.code(), e.Error.Message
		} else {
			out.code, out.message = "http", fmt.Sprintf("%.200s", b)
		}
		if out.code == "" {
			out.code = "http"
		}
		return out
	}
	res, err := readStream(resp.Body, time.Now)
	out.latency = time.Since(start)
	if err == nil {
		drain(resp.Body)
	}
	if !res.firstContent.IsZero() {
		out.ttft = res.firstContent.Sub(start)
	}
	switch {
	case err != nil && errors.Is(err, errBadStream):
		out.code, out.message = "bad_stream", err.Error()
	case err != nil:
		out.code, out.message = networkCode(ctx, err), err.Error()
	case res.apiErr != nil:
		out.code, out.message = res.apiErr.code(), res.apiErr.Message
		if out.code == "" {
			out.code = "stream_error"
		}
	case !res.done:
		out.code, out.message = "truncated", "stream ended without [DONE]"
	}
	out.shm, out.inline = transportsInReply(res.text)
	return out
}

// drainLimit bounds what drain reads after the end of a stream.
const drainLimit = 64 << 10

// drain reads what follows the [DONE] event (the end of the chunked body)
// so that the client reuses the connection: a response body closed before
// its end makes net/http close the connection, and the next request then
// measures a new connection's set-up as well.
func drain(body io.Reader) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainLimit))
}

// networkCode classifies a transport-level failure.
func networkCode(ctx context.Context, err error) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return "client_timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "network"
}

// Run sends the load and returns the report. It fails only when nothing
// could be measured (a canceled context before any request); request
// failures are counted in the report.
func (r *Runner) Run(ctx context.Context) (*Report, error) {
	o := r.opts
	var child *probeChild
	if !o.NoProbe && len(o.ProbeProcess) > 0 {
		var err error
		if child, err = r.startProbeChild(ctx); err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
	}
	probes := &probeStream{child: child}
	defer probes.kill()
	if !o.NoWarmUp {
		if child == nil {
			r.warmText(ctx)
		}
		r.warmImage(ctx)
	}
	before, merr := r.scrape(ctx)

	l := &imageLoad{results: make([]outcome, 0, o.Requests), stopped: make(chan struct{}), stopBy: "requests"}
	capTimer := time.AfterFunc(o.Duration, func() { l.stop("duration") })
	defer capTimer.Stop()
	go func() {
		select {
		case <-ctx.Done():
			l.stop("canceled")
		case <-l.stopped:
		}
	}()

	start := time.Now()
	var wg sync.WaitGroup
	r.sendImages(ctx, l, &wg)
	imagesDone := make(chan struct{})
	r.startProbes(ctx, probes, imagesDone)
	progressDone := make(chan struct{})
	go r.progress(start, &l.finished, imagesDone, progressDone)

	wg.Wait()
	wall := time.Since(start)
	close(imagesDone)
	probed, probeErr := probes.finish()
	<-progressDone
	l.stop("requests")

	var after metrics
	if merr == nil {
		after, merr = r.scrape(context.WithoutCancel(ctx))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.results) == 0 && ctx.Err() != nil {
		return nil, fmt.Errorf("run: %w", ctx.Err())
	}
	rep := r.report(l.results, probed, wall, l.stopBy)
	rep.ProbeProcess = len(o.ProbeProcess) > 0 && !o.NoProbe
	if probeErr != nil {
		rep.ProbeError = probeErr.Error()
	}
	if merr != nil {
		rep.MetricsError = merr.Error()
	} else {
		addMetrics(rep, before, after)
	}
	return rep, nil
}

// imageLoad is the image requests of a run: why they stopped being issued
// and how they ended.
type imageLoad struct {
	finished atomic.Int64 // requests ended, for the progress lines
	stopped  chan struct{}
	stopOnce sync.Once

	mu      sync.Mutex
	stopBy  string
	results []outcome
}

// stop ends the issuing of requests, for reason why; the first call counts.
func (l *imageLoad) stop(why string) {
	l.stopOnce.Do(func() {
		l.mu.Lock()
		l.stopBy = why
		l.mu.Unlock()
		close(l.stopped)
	})
}

// sendImages starts Concurrency workers (counted in wg) that send the image
// requests in order until all are sent or the load is stopped.
func (r *Runner) sendImages(ctx context.Context, l *imageLoad, wg *sync.WaitGroup) {
	var next atomic.Int64
	for range r.opts.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-l.stopped:
					return
				default:
				}
				i := int(next.Add(1)) - 1
				if i >= r.opts.Requests {
					return
				}
				res := r.do(ctx, r.bodies[i%len(r.bodies)], false)
				l.finished.Add(1)
				l.mu.Lock()
				l.results = append(l.results, res)
				l.mu.Unlock()
			}
		}()
	}
}

// probeStream is the text probes of a run: sent by the probe process when
// there is one, else by a goroutine of this one.
type probeStream struct {
	child *probeChild
	wg    sync.WaitGroup
	mu    sync.Mutex
	got   []outcome
	err   error
}

// startProbes starts the probe stream, which lasts until imagesDone closes.
func (r *Runner) startProbes(ctx context.Context, p *probeStream, imagesDone <-chan struct{}) {
	if p.child != nil {
		if err := p.child.start(); err != nil {
			p.err = fmt.Errorf("probe process: %w", err)
		}
		return
	}
	if r.opts.NoProbe {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		got := r.probeLoop(ctx, imagesDone)
		p.mu.Lock()
		p.got = got
		p.mu.Unlock()
	}()
}

// finish waits for the probe stream to end and returns its probes and the
// first error of the probe process.
func (p *probeStream) finish() ([]outcome, error) {
	p.wg.Wait()
	if p.child != nil {
		got, err := p.child.finish()
		p.child = nil
		p.got = got
		if p.err == nil {
			p.err = err
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.got, p.err
}

// kill stops a probe process that finish did not end (Run returned early).
func (p *probeStream) kill() {
	if p.child != nil {
		p.child.kill()
	}
}

// progress prints the number of finished image requests every 2 s.
func (r *Runner) progress(start time.Time, finished *atomic.Int64, done <-chan struct{}, exit chan<- struct{}) {
	defer close(exit)
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			n := finished.Load()
			fmt.Fprintf(r.opts.Progress, "bench gateway: %d/%d image requests in %.1fs\n", n, r.opts.Requests, time.Since(start).Seconds())
		}
	}
}

// scrape reads the gateway's /metrics.
func (r *Runner) scrape(ctx context.Context) (metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.ep.base+"/metrics", nil)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: status %d", resp.StatusCode)
	}
	m, err := parseMetrics(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return m, nil
}

// probeLoop sends text probes, one every ProbeInterval (or back to back),
// until done is closed, and returns those that ended before it was.
func (r *Runner) probeLoop(ctx context.Context, done <-chan struct{}) []outcome {
	var probes []outcome
	next := time.Now()
	for {
		if wait := time.Until(next); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-done:
				t.Stop()
				return probes
			case <-t.C:
			}
		}
		select {
		case <-done:
			return probes
		default:
		}
		if r.opts.ProbeInterval > 0 {
			next = time.Now().Add(r.opts.ProbeInterval)
		}
		res := r.do(ctx, r.probe, true)
		if ctx.Err() != nil {
			return probes
		}
		select {
		case <-done:
			// A probe that ended after the image load is not measured
			// under load.
			return probes
		default:
		}
		probes = append(probes, res)
	}
}
