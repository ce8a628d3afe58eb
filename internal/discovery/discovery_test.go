package discovery

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func w(url, uid string) Worker {
	return Worker{URL: url, PodUID: uid, Namespace: "ns", PodName: "p-" + uid}
}

func ready(x Worker) PodState { return PodState{Worker: x, State: StateReady} }

func TestParseRuntime(t *testing.T) {
	for _, ok := range []string{"", "tokenspeed", "vllm", "sglang"} {
		if r, err := ParseRuntime(ok); err != nil || string(r) != ok {
			t.Errorf("ParseRuntime(%q) = %q, %v", ok, r, err)
		}
	}
	for _, bad := range []string{"VLLM", "trt", " vllm", "tokenspeed "} {
		if _, err := ParseRuntime(bad); !errors.Is(err, ErrBadWorker) {
			t.Errorf("ParseRuntime(%q) error %v, want ErrBadWorker", bad, err)
		}
	}
}

func TestDiff(t *testing.T) {
	a, b, c := w("grpc://a:1", "u1"), w("grpc://b:1", "u2"), w("grpc://c:1", "u3")
	b2 := w("grpc://b:1", "u9") // same URL, new pod
	c2 := c
	c2.Model = "m"
	cases := []struct {
		name        string
		cur, want   []Worker
		rem, up, ad []Worker
	}{
		{"empty", nil, nil, nil, nil, nil},
		{"add", nil, []Worker{b, a}, nil, nil, []Worker{a, b}},
		{"remove", []Worker{a, b}, []Worker{b}, []Worker{a}, nil, nil},
		{"same", []Worker{a, b}, []Worker{b, a}, nil, nil, nil},
		{"replace same url", []Worker{a, b}, []Worker{a, b2}, []Worker{b}, nil, []Worker{b2}},
		{"update fields", []Worker{c}, []Worker{c2}, nil, []Worker{c2}, nil},
		{"all at once", []Worker{a, b, c}, []Worker{b2, c2}, []Worker{a, b}, []Worker{c2}, []Worker{b2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Diff(byURL(tc.cur), byURL(tc.want))
			want := Changes{Remove: tc.rem, Update: tc.up, Add: tc.ad}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Diff =\n%+v\nwant\n%+v", got, want)
			}
			if got.Empty() != (len(tc.rem)+len(tc.up)+len(tc.ad) == 0) {
				t.Fatal("Empty disagrees")
			}
		})
	}
}

func byURL(ws []Worker) map[string]Worker {
	m := map[string]Worker{}
	for _, x := range ws {
		m[x.URL] = x
	}
	return m
}

func TestDesiredOneWorkerPerURL(t *testing.T) {
	x1, x2 := w("grpc://x:1", "u1"), w("grpc://x:1", "u2")
	x2.PodName = "a-first-by-name"
	pods := []PodState{ready(x1), ready(x2), {Worker: w("grpc://y:1", "u3"), State: StateNotReady}}
	// Nothing reported yet: the first by namespace/name wins.
	d, losers := Desired(pods, nil)
	if len(d) != 1 || d["grpc://x:1"].PodUID != "u2" || len(losers) != 1 || losers[0].PodUID != "u1" {
		t.Fatalf("desired %v losers %v", d, losers)
	}
	// u1 already holds the URL: it keeps it.
	d, losers = Desired(pods, map[string]Worker{"grpc://x:1": x1})
	if d["grpc://x:1"].PodUID != "u1" || len(losers) != 1 || losers[0].PodUID != "u2" {
		t.Fatalf("desired %v losers %v", d, losers)
	}
}

// recSink records Sink calls in order.
type recSink struct {
	mu    sync.Mutex
	calls []string
}

func (s *recSink) AddWorker(x Worker)    { s.add("add " + x.URL + " " + x.PodUID) }
func (s *recSink) UpdateWorker(x Worker) { s.add("update " + x.URL + " " + x.PodUID) }
func (s *recSink) RemoveWorker(x Worker) { s.add("remove " + x.URL + " " + x.PodUID) }
func (s *recSink) add(c string) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}
func (s *recSink) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls
	s.calls = nil
	return c
}

func TestTracker(t *testing.T) {
	if _, err := NewTracker(TrackerOptions{}); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("no sink: %v", err)
	}
	var logs bytes.Buffer
	sink := &recSink{}
	now := time.Unix(1000, 0)
	tr, err := NewTracker(TrackerOptions{Sink: sink, Source: "kubernetes",
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	st := tr.Status()
	if st.Synced || len(st.Workers) != 0 || st.Workers == nil || st.Pods[StateReady] != 0 {
		t.Fatalf("fresh status %+v", st)
	}
	a, b := w("grpc://10.0.0.1:50051", "ua"), w("grpc://10.0.0.2:50051", "ub")
	step := func(pods []PodState, want ...string) {
		t.Helper()
		tr.Apply(pods)
		if got := sink.take(); !reflect.DeepEqual(got, want) {
			t.Fatalf("calls %q, want %q", got, want)
		}
	}
	step([]PodState{ready(b), ready(a)}, "add grpc://10.0.0.1:50051 ua", "add grpc://10.0.0.2:50051 ub")
	step([]PodState{ready(b), ready(a)}) // level-triggered: nothing new
	step([]PodState{ready(a), {Worker: b, State: StateNotReady, Reason: "condition Ready is False"}},
		"remove grpc://10.0.0.2:50051 ub")
	b2 := w(b.URL, "ub2") // restarted on the same IP
	step([]PodState{ready(a), ready(b2)}, "add grpc://10.0.0.2:50051 ub2")
	b3 := w(b.URL, "ub3")
	step([]PodState{ready(a), ready(b3)}, "remove grpc://10.0.0.2:50051 ub2", "add grpc://10.0.0.2:50051 ub3")
	a2 := a
	a2.Model = "other"
	step([]PodState{ready(a2), ready(b3), {Worker: w("", "uc"), State: StateInvalid, Reason: "bad port"}},
		"update grpc://10.0.0.1:50051 ua")
	step(nil, "remove grpc://10.0.0.1:50051 ua", "remove grpc://10.0.0.2:50051 ub3")

	tr.Apply([]PodState{ready(a), {Worker: b, State: StateTerminating}})
	tr.NoteError(fmt.Errorf("watch: too old resource version"))
	st = tr.Status()
	if !st.Synced || st.Passes != 8 || !st.LastPass.Equal(now) || st.Errors != 1 ||
		!strings.Contains(st.LastError, "too old") {
		t.Fatalf("status %+v", st)
	}
	if want := map[State]int{StateReady: 1, StateNotReady: 0, StateTerminating: 1, StateInvalid: 0}; !reflect.DeepEqual(st.Pods, want) {
		t.Fatalf("pods %v, want %v", st.Pods, want)
	}
	if len(st.Workers) != 1 || st.Workers[0] != a {
		t.Fatalf("workers %v", st.Workers)
	}
	for _, want := range []string{
		`msg="discovery: worker removed" source=kubernetes url=grpc://10.0.0.2:50051 pod=ns/p-ub uid=ub reason="not_ready: condition Ready is False"`,
		`reason="replaced by pod ns/p-ub3 uid ub3"`,
		`msg="discovery: worker updated"`,
		`url=grpc://10.0.0.1:50051 pod=ns/p-ua uid=ua reason="pod gone"`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s\n%s", want, logs.String())
		}
	}
}

func TestBackoff(t *testing.T) {
	b := NewBackoff(BackoffOptions{Base: time.Second, Max: 5 * time.Second, Reset: time.Minute})
	t0 := time.Unix(0, 0)
	if d := b.Wait("u", t0); d != 0 {
		t.Fatalf("fresh url waits %v", d)
	}
	for i, want := range []time.Duration{1, 2, 4, 5, 5} {
		if d := b.Failed("u", t0); d != want*time.Second {
			t.Fatalf("failure %d: wait %v, want %v", i+1, d, want*time.Second)
		}
	}
	if d := b.Wait("u", t0.Add(2*time.Second)); d != 3*time.Second {
		t.Fatalf("Wait = %v", d)
	}
	if d := b.Wait("u", t0.Add(5*time.Second)); d != 0 {
		t.Fatalf("Wait at the deadline = %v", d)
	}
	if d := b.Wait("other", t0); d != 0 {
		t.Fatalf("other url waits %v", d)
	}
	if n := b.Failures("u", t0); n != 5 {
		t.Fatalf("Failures = %d", n)
	}
	// Quiet for longer than Reset: back to Base.
	later := t0.Add(2 * time.Minute)
	if n := b.Failures("u", later); n != 0 {
		t.Fatalf("Failures after reset = %d", n)
	}
	if d := b.Failed("u", later); d != time.Second {
		t.Fatalf("after reset: wait %v", d)
	}
	if d := NewBackoff(BackoffOptions{}).Failed("u", t0); d != DefaultBackoffBase {
		t.Fatalf("default base %v", d)
	}
}

func TestBackoffConcurrent(t *testing.T) {
	b := NewBackoff(BackoffOptions{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				url := fmt.Sprintf("u%d", (i+j)%5)
				b.Failed(url, time.Unix(int64(j), 0))
				b.Wait(url, time.Unix(int64(j), 0))
			}
		}()
	}
	wg.Wait()
}
