package benchgw

import (
	"slices"
	"testing"
)

func TestLevelImages(t *testing.T) {
	imgs := []Image{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
	names := func(l []Image) string {
		var s string
		for _, im := range l {
			s += im.Name
		}
		return s
	}
	for _, tc := range []struct {
		i, requests int
		want        string
	}{{0, 2, "abcde"}, {1, 2, "cdeab"}, {2, 2, "eabcd"}, {1, 5, "abcde"}, {3, 4, "cdeab"}} {
		if got := names(LevelImages(imgs, tc.i, tc.requests)); got != tc.want {
			t.Errorf("level %d, %d requests: %s, want %s", tc.i, tc.requests, got, tc.want)
		}
	}
	if names(imgs) != "abcde" {
		t.Errorf("input changed")
	}
}

func TestParseLevels(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1,2,4,8", []int{1, 2, 4, 8}, true},
		{" 16 , 3", []int{16, 3}, true},
		{"1,0", nil, false},
		{"1,x", nil, false},
		{"2,2", nil, false},
		{",", nil, false},
	} {
		got, err := ParseLevels(tc.in)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("ParseLevels(%q) = %v, %v", tc.in, got, err)
		}
		if tc.ok {
			if back, err := ParseLevels(FormatLevels(got)); err != nil || !slices.Equal(back, got) {
				t.Errorf("FormatLevels(%v) = %q reads back as %v, %v", got, FormatLevels(got), back, err)
			}
		}
	}
}

func TestSweepLevels(t *testing.T) {
	for _, tc := range []struct {
		sweep       string
		concurrency int
		given       bool
		report      bool
		want        []int
	}{
		{"", 8, false, false, []int{8}},
		{"", 8, false, true, []int{1, 2, 4, 8}},
		{"", 3, true, true, []int{3}},
		{"2,6", 3, true, false, []int{2, 6}},
	} {
		got, err := Levels(tc.sweep, tc.concurrency, tc.given, tc.report)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Levels(%q, %d, %v, %v) = %v, %v; want %v", tc.sweep, tc.concurrency, tc.given, tc.report, got, err, tc.want)
		}
	}
}
