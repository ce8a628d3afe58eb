package shm

import (
	"strings"
	"testing"
	"time"
)

func TestSegmentNameRoundTrip(t *testing.T) {
	dl := time.UnixMilli(1_800_000_000_123)
	a, err := segmentName("mmgate-", "0123456789abcdef", dl)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := segmentName("mmgate-", "0123456789abcdef", dl)
	if a == b {
		t.Fatalf("two names are equal: %s", a)
	}
	if err := validName(a); err != nil {
		t.Fatal(err)
	}
	pn, ok := parseName("mmgate-", a)
	if !ok || pn.owner != "0123456789abcdef" || !pn.deadline.Equal(dl) {
		t.Fatalf("parseName(%q) = %+v, %v", a, pn, ok)
	}
	// The random part carries 128 bits: 32 hex digits.
	if r := a[strings.LastIndexByte(a, '-')+1:]; len(r) != 32 {
		t.Fatalf("random part %q", r)
	}
}

func TestParseNameRejects(t *testing.T) {
	good, _ := segmentName("mmgate-", "0123456789abcdef", time.UnixMilli(5))
	for _, n := range []string{
		"", "mmgate-", "other-" + good[len("mmgate-"):], good + "0", good[:len(good)-1],
		strings.ToUpper(good), strings.Replace(good, "-", "_", 2), "mmgate-x",
	} {
		if _, ok := parseName("mmgate-", n); ok {
			t.Errorf("parseName(%q) accepted", n)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"mmgate-abc", true},
		{"", false},
		{".", false},
		{"..", false},
		{"../etc/passwd", false},
		{"a/b", false},
		{"/etc/passwd", false},
		{"mmgate-\x00x", false},
		{strings.Repeat("a", 256), false},
		{"..mmgate", true},
	} {
		if err := validName(tc.name); (err == nil) != tc.ok {
			t.Errorf("validName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestDecide(t *testing.T) {
	lim := Limits{MinBytes: 100, MaxInline: 1000}
	for _, tc := range []struct {
		mode  Mode
		match bool
		n     int
		want  Path
	}{
		{ModeAuto, true, 50, PathInline},
		{ModeAuto, true, 100, PathShm},
		{ModeAuto, false, 100, PathInline},
		{ModeAuto, true, 5000, PathShm},
		{ModeAuto, false, 5000, PathTooLarge},
		{ModeInline, true, 500, PathInline},
		{ModeInline, true, 1000, PathInline},
		{ModeInline, true, 1001, PathTooLarge},
		{ModeShm, false, 500, PathShm},
		{ModeShm, false, 99, PathInline},
		{ModeShm, false, 5000, PathShm},
		{ModeShm, false, 0, PathInline},
	} {
		if got := Decide(tc.mode, tc.match, tc.n, lim); got != tc.want {
			t.Errorf("Decide(%v, %v, %d) = %v, want %v", tc.mode, tc.match, tc.n, got, tc.want)
		}
	}
	// Zero Limits mean the defaults.
	if got := Decide(ModeShm, false, DefaultMinBytes-1, Limits{}); got != PathInline {
		t.Errorf("below default threshold: %v", got)
	}
	if got := Decide(ModeInline, false, DefaultMaxInline+1, Limits{}); got != PathTooLarge {
		t.Errorf("above default inline limit: %v", got)
	}
	if got := Decide(ModeShm, false, 1, Limits{MinBytes: -1}); got != PathShm {
		t.Errorf("no threshold: %v", got)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAuto, "auto": ModeAuto, "inline": ModeInline, "shm": ModeShm} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("SHM"); err == nil {
		t.Error("ParseMode(SHM) accepted")
	}
}
