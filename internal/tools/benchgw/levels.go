package benchgw

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LevelImages is the image list of the i-th level of a concurrency sweep
// that sends requests image requests per level: it starts where the
// previous levels' requests stopped, so that with enough files no level
// sends a picture an earlier level sent (which the gateway's tensor cache
// would answer without preprocessing). imgs is not changed.
func LevelImages(imgs []Image, i, requests int) []Image {
	k := (i * requests) % len(imgs)
	if k == 0 {
		return imgs
	}
	return append(append(make([]Image, 0, len(imgs)), imgs[k:]...), imgs[:k]...)
}

// DefaultSweep is the concurrency sweep of a run with a report and no
// concurrency given.
func DefaultSweep() []int { return []int{1, 2, 4, 8} }

// ParseLevels reads a concurrency sweep: "1,2,4,8" (each ≥ 1, no repeats;
// empty items are skipped).
func ParseLevels(v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad concurrency %q (want integers ≥ 1)", f)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("concurrency %d given twice", n)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no concurrency levels")
	}
	return out, nil
}

// Levels decides the concurrency levels of a run: an explicit sweep; else,
// with a report and no concurrency given, DefaultSweep; else the single
// concurrency.
func Levels(sweep string, concurrency int, given, report bool) ([]int, error) {
	switch {
	case strings.TrimSpace(sweep) != "":
		return ParseLevels(sweep)
	case report && !given:
		return DefaultSweep(), nil
	}
	return []int{concurrency}, nil
}

// FormatLevels writes levels as ParseLevels reads them.
func FormatLevels(levels []int) string {
	s := make([]string, len(levels))
	for i, n := range levels {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
