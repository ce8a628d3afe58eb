package transportbench

import (
	"slices"
	"testing"
)

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1,4,16", []int{1 << 20, 4 << 20, 16 << 20}, true},
		{" 64KiB , 2MiB,1GiB,2048B", []int{64 << 10, 2 << 20, 1 << 30, 2048}, true},
		{"1000B", nil, false},
		{"0", nil, false},
		{"-1", nil, false},
		{"x", nil, false},
		{"", nil, false},
	} {
		got, err := ParseSizes(tc.in)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSizes(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestParsePaths(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"shm, memcpy", []string{PathShm, PathMemcpy}, true},
		{"shm-reuse,,inline-unix", []string{PathShmReuse, PathInlineUnix}, true},
		{"", nil, true},
		{"shm,carrier-pigeon", nil, false},
	} {
		got, err := ParsePaths(tc.in)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("ParsePaths(%q) = %v, %v", tc.in, got, err)
		}
	}
}
