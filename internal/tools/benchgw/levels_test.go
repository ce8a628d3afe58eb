package benchgw

import "testing"

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
