package limits

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPaceDeadline(t *testing.T) {
	start := time.Unix(100, 0)
	p := Pace{Idle: 30 * time.Second, MinRate: 8 << 10, Grace: 10 * time.Second}
	cases := []struct {
		last     time.Duration // after start
		received int64
		want     time.Duration // after start; -1: none
	}{
		{0, 0, 10 * time.Second},                       // the rate rule first
		{0, 8 << 10, 11 * time.Second},                 // one second of head room per 8 KiB
		{5 * time.Second, 400 << 10, 35 * time.Second}, // 50 s by rate; 35 s by idle
		{time.Minute, 1 << 30, 90 * time.Second},
	}
	for _, c := range cases {
		got := p.Deadline(start, start.Add(c.last), c.received).Sub(start)
		if got != c.want {
			t.Errorf("last %v received %d: deadline %v, want %v", c.last, c.received, got, c.want)
		}
	}
	if d := (Pace{}).Deadline(start, start, 0); !d.IsZero() {
		t.Errorf("zero Pace: deadline %v", d)
	}
	if d := (Pace{Idle: time.Second}).Deadline(start, start.Add(time.Second), 5); d != start.Add(2*time.Second) {
		t.Errorf("idle only: %v", d)
	}
}

// The default body limit, 64 MiB, sent at exactly the minimum rate, is
// never cut; sent at 99% of it, it is.
func TestPaceLargeBodyAtMinimumRate(t *testing.T) {
	p := Pace{Idle: 30 * time.Second, MinRate: 8 << 10, Grace: 10 * time.Second}
	start := time.Unix(0, 0)
	run := func(rate float64) (cut bool) {
		const size, step = 64 << 20, 4 << 10 // a write every half second
		var received int64
		now := start
		for received < size {
			now = now.Add(time.Duration(float64(step) / rate * float64(time.Second)))
			if !now.Before(p.Deadline(start, now, received)) {
				return true
			}
			received += step
		}
		return false
	}
	if run(8 << 10) {
		t.Error("64 MiB at 8 KiB/s was cut")
	}
	if !run(0.99 * (8 << 10)) {
		t.Error("64 MiB at 99% of 8 KiB/s was not cut")
	}
}

func TestPaceCut(t *testing.T) {
	p := Pace{Idle: 30 * time.Second, MinRate: 8 << 10, Grace: 10 * time.Second}
	start := time.Unix(0, 0)
	r := p.Cut(start, start.Add(time.Second), start.Add(10*time.Second), 12)
	if !errors.Is(r, ErrBodyTimeout) || r.Reason != ReasonBodyTimeout || !strings.Contains(r.Msg, "too slowly") {
		t.Errorf("rate cut: %+v", r)
	}
	r = p.Cut(start, start.Add(5*time.Second), start.Add(35*time.Second), 1<<20)
	if !strings.Contains(r.Msg, "no byte for 30s") {
		t.Errorf("idle cut: %+v", r)
	}
}
