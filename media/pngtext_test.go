package media

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// xmpOrientation finds what Pillow's regular expression finds: the digit
// of its first match, on written cases and on random strings built from
// the pattern's pieces.
func TestXMPOrientation(t *testing.T) {
	pillow := regexp.MustCompile(`tiff:Orientation(="|>)([0-9])`)
	want := func(s string) int {
		if m := pillow.FindStringSubmatch(s); m != nil {
			return int(m[2][0] - '0')
		}
		return -1
	}
	cases := []string{
		"", "tiff:Orientation", `tiff:Orientation="`, `tiff:Orientation="6"`, "<tiff:Orientation>3</tiff:Orientation>",
		`tiff:Orientation=6 tiff:Orientation="8"`, `tiff:Orientation="x" tiff:Orientation>2`, "tiff:Orientationtiff:Orientation>5",
		`tiff:Orientation=""7`, "tiff:Orientation>",
	}
	pieces := []string{"tiff:Orientation", "tiff:", "Orientation", "=", `"`, ">", "0", "6", "9", "x", " "}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, w := xmpOrientation(s), want(s); got != w {
			t.Fatalf("xmpOrientation(%q) = %d, the pattern finds %d", s, got, w)
		}
	}
}
