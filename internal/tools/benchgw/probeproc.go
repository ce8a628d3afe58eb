package benchgw

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime/debug"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// This file answers: how does the text probe run in a process of its own?
// A text-only client of a gateway is not a goroutine of the image client:
// inside the load generator the probe waited now and then for the load
// generator's own goroutines (its slowest probes took 6-15 ms where the
// gateway had spent under 3 ms on them). With Options.ProbeProcess the probe
// stream runs in a child process that speaks this protocol on its stdin and
// stdout, one line each step:
//
//	parent → child: the probeConfig as JSON
//	child → parent: "ready" once its warm-up requests are done
//	parent → child: "go" when the image load starts; closing stdin ends it
//	child → parent: the measured probes as one JSON array, then it exits
//
// A probe still running when stdin closes is not measured, as in process.

// probeConfig is what the child needs to send probes.
type probeConfig struct {
	URL            string        `json:"url"`
	AllowRemote    bool          `json:"allow_remote"`
	Model          string        `json:"model"`
	MaxTokens      int           `json:"max_tokens"`
	ProbeText      string        `json:"probe_text"`
	ProbeInterval  time.Duration `json:"probe_interval"`
	RequestTimeout time.Duration `json:"request_timeout"`
	APIKey         string        `json:"api_key"`
	WarmUp         bool          `json:"warm_up"`
}

// probeResult is one probe as the child reports it.
type probeResult struct {
	LatencyNS int64  `json:"latency_ns"`
	TTFTNS    int64  `json:"ttft_ns"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	Message   string `json:"message"`
}

// probeHeapLimit is the heap at which the probe process collects garbage
// again during the measured run.
const probeHeapLimit = 256 << 20

// probeTimeout bounds the child's start-up and warm-up.
const probeTimeout = 2 * time.Minute

// ServeProbe is the child side (`mmgate bench probe`): it reads its
// configuration from in, sends the probe stream and writes the results to
// out, as the protocol above says.
func ServeProbe(ctx context.Context, in io.Reader, out io.Writer) error {
	rd := bufio.NewReader(in)
	line, err := rd.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("probe: reading the configuration: %w", err)
	}
	var c probeConfig
	if err := json.Unmarshal(line, &c); err != nil {
		return fmt.Errorf("probe: configuration: %w", err)
	}
	o := Options{URL: c.URL, AllowRemote: c.AllowRemote, Model: c.Model, MaxTokens: c.MaxTokens,
		ProbeText: c.ProbeText, ProbeInterval: c.ProbeInterval, RequestTimeout: c.RequestTimeout, APIKey: c.APIKey}
	o.setDefaults()
	ep, err := parseEndpoint(o.URL, o.AllowRemote)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	body, err := probeBody(o)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	// A runner that only sends probes: no image bodies, no image client.
	r := &Runner{opts: o, ep: ep, probeClient: newClient(ep, 1), probe: body}
	if c.WarmUp {
		r.warmText(ctx)
	}
	// The probes allocate a few kilobytes each: this process needs no
	// collection while it measures, and one would add its own pause to a
	// probe's latency. The limit brings the collector back should the
	// heap grow after all.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(probeHeapLimit))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if _, err := io.WriteString(out, "ready\n"); err != nil {
		return err
	}
	if line, err = rd.ReadBytes('\n'); err != nil || string(line) != "go\n" {
		return fmt.Errorf("probe: waiting for go: %q %v", line, err)
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, rd) // until the parent closes stdin
		close(done)
	}()
	var res []probeResult
	for _, o := range r.probeLoop(ctx, done) {
		res = append(res, probeResult{LatencyNS: int64(o.latency), TTFTNS: int64(o.ttft), Status: o.status, Code: o.code, Message: o.message})
	}
	return json.NewEncoder(out).Encode(res)
}

// probeChild is the parent's handle on a running probe process.
type probeChild struct {
	p      *procs.Proc
	stdout *bufio.Reader
}

// startProbeChild starts the probe process and waits until it is ready.
func (r *Runner) startProbeChild(ctx context.Context) (*probeChild, error) {
	o := r.opts
	argv := o.ProbeProcess
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = o.Progress
	cmd.WaitDelay = 5 * time.Second
	proc, err := procs.StartCmd("probe", cmd, procs.Options{Stdin: true, Stdout: true})
	if err != nil {
		return nil, fmt.Errorf("probe process: %w", err)
	}
	p := &probeChild{p: proc, stdout: bufio.NewReader(proc.Stdout)}
	cfg, _ := json.Marshal(probeConfig{URL: o.URL, AllowRemote: o.AllowRemote, Model: o.Model, MaxTokens: o.MaxTokens,
		ProbeText: o.ProbeText, ProbeInterval: o.ProbeInterval, RequestTimeout: o.RequestTimeout, APIKey: o.APIKey,
		WarmUp: !o.NoWarmUp})
	ready := make(chan error, 1)
	go func() {
		if _, err := proc.Stdin.Write(append(cfg, '\n')); err != nil {
			ready <- err
			return
		}
		line, err := p.stdout.ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("said %q", line)
		}
		ready <- err
	}()
	select {
	case err = <-ready:
	case <-time.After(probeTimeout):
		err = errors.New("not ready in time")
	}
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("probe process: %w", err)
	}
	return p, nil
}

// start tells the child that the load has started.
func (p *probeChild) start() error {
	_, err := io.WriteString(p.p.Stdin, "go\n")
	return err
}

// finish ends the probe stream and returns the measured probes.
func (p *probeChild) finish() ([]outcome, error) {
	p.p.Stdin.Close()
	var res []probeResult
	derr := json.NewDecoder(p.stdout).Decode(&res)
	p.p.Stdout.Close()
	if werr := p.p.ExitErr(); werr != nil {
		return nil, fmt.Errorf("probe process: %w", werr)
	}
	if derr != nil {
		return nil, fmt.Errorf("probe process: results: %w", derr)
	}
	out := make([]outcome, 0, len(res))
	for _, q := range res {
		out = append(out, outcome{probe: true, latency: time.Duration(q.LatencyNS), ttft: time.Duration(q.TTFTNS),
			status: q.Status, code: q.Code, message: q.Message})
	}
	return out, nil
}

// kill stops the child (after a failure) and reaps it.
func (p *probeChild) kill() {
	p.p.Kill()
	p.p.Stdout.Close()
}
