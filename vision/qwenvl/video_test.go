package qwenvl

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/vision"
)

// G6: timestamp formatting rounds the exact binary value half to even, as
// Python's "{:.1f}" does (expected strings produced by Python 3.11).
func TestFormatTimestamp(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.25, "0.2"}, {0.75, "0.8"}, {1.25, "1.2"}, {2.25, "2.2"},
		{0.05, "0.1"}, {0.15, "0.1"}, {1.45, "1.4"}, {3.35, "3.4"},
	}
	for _, tc := range tests {
		if got := FormatTimestamp(tc.in); got != tc.want {
			t.Errorf("FormatTimestamp(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The Qwen3-VL vectors of docs/preprocessing.md ("Test vectors (video)"):
// count, indices (prefix/suffix as listed), per-frame size, grid_t, leading
// timestamps.
func TestVideoQwen3Vectors(t *testing.T) {
	tests := []struct {
		total      int
		fps        float64
		h, w       int
		n          int
		head, tail []int
		size       [2]int
		gt         int
		stamps     []string
	}{
		{48, 24, 1080, 1920, 4, []int{0, 16, 31, 47}, nil, [2]int{1088, 1920}, 2, []string{"0.3", "1.6"}},
		{300, 30, 720, 1280, 20, []int{0, 16, 31, 47, 63, 79}, []int{268, 283, 299}, [2]int{704, 1280}, 10, []string{"0.3", "1.3", "2.4", "3.4"}},
		{7, 25, 480, 640, 4, []int{0, 2, 4, 6}, nil, [2]int{480, 640}, 2, []string{"0.0", "0.2"}},
		{1000, 29.97, 1080, 1920, 66, []int{0, 15, 31, 46, 61, 77}, nil, [2]int{448, 800}, 33, []string{"0.3", "1.3", "2.3", "3.3"}},
		{20000, 30, 1080, 1920, 768, []int{0, 26, 52, 78}, []int{19973, 19999}, [2]int{128, 224}, 384, []string{"0.4", "2.2", "3.9", "5.7"}},
		{3, 24, 240, 320, 3, []int{0, 1, 2}, nil, [2]int{256, 320}, 2, []string{"0.0", "0.1"}},
	}
	for _, tc := range tests {
		idx, err := SampleFramesQwen3(tc.total, tc.fps, 2, 4, 768)
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != tc.n || !reflect.DeepEqual(idx[:len(tc.head)], tc.head) ||
			!reflect.DeepEqual(idx[len(idx)-len(tc.tail):], append([]int{}, tc.tail...)) {
			t.Errorf("%d@%v: indices %v", tc.total, tc.fps, idx)
		}
		h, w, err := SmartResizeVideoQwen3(len(idx), tc.h, tc.w, 2, 32, 4096, 25165824)
		if err != nil || [2]int{h, w} != tc.size {
			t.Errorf("%d@%v: size (%d, %d), %v; want %v", tc.total, tc.fps, h, w, err, tc.size)
		}
		if gt := (len(idx) + 1) / 2; gt != tc.gt {
			t.Errorf("%d@%v: gt %d, want %d", tc.total, tc.fps, gt, tc.gt)
		}
		stamps := TimestampsQwen3(idx, tc.fps)
		if len(stamps) != tc.gt || !reflect.DeepEqual(stamps[:len(tc.stamps)], tc.stamps) {
			t.Errorf("%d@%v: timestamps %v, want prefix %v", tc.total, tc.fps, stamps, tc.stamps)
		}
	}
}

// Full index lists and timestamps from NumPy's float64 linspace
// (testdata/numpy_golden.json).
func TestVideoQwen3NumpyGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/numpy_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Videos []struct {
			Total      int      `json:"total"`
			SrcFPS     float64  `json:"src_fps"`
			Indices    []int    `json:"indices"`
			Timestamps []string `json:"timestamps"`
		} `json:"qwen3_videos"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Videos) == 0 {
		t.Fatal("no video cases")
	}
	for _, v := range g.Videos {
		idx, err := SampleFramesQwen3(v.Total, v.SrcFPS, 2, 4, 768)
		if err != nil || !reflect.DeepEqual(idx, v.Indices) {
			t.Errorf("%d@%v: %v, %v\nwant %v", v.Total, v.SrcFPS, idx, err, v.Indices)
		}
		if got := TimestampsQwen3(idx, v.SrcFPS); !reflect.DeepEqual(got, v.Timestamps) {
			t.Errorf("%d@%v: timestamps %v, want %v", v.Total, v.SrcFPS, got, v.Timestamps)
		}
	}
}

func TestVideoQwen3Errors(t *testing.T) {
	// Unknown fps assumes 24: 48 frames → 4 samples.
	idx, err := SampleFramesQwen3(48, 0, 2, 4, 768)
	if err != nil || !reflect.DeepEqual(idx, []int{0, 16, 31, 47}) {
		t.Errorf("unknown fps: %v, %v", idx, err)
	}
	if got := TimestampsQwen3([]int{0, 24}, 0); !reflect.DeepEqual(got, []string{"0.5"}) {
		t.Errorf("unknown fps timestamps: %v", got)
	}
	if _, err := SampleFramesQwen3(0, 24, 2, 4, 768); !errors.Is(err, vision.ErrTooSmall) {
		t.Errorf("no frames: %v", err)
	}
	if _, err := SampleFramesQwen3(10, 24, 0, 4, 768); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("zero fps: %v", err)
	}
	// One frame samples [0]; the size step refuses T < 2.
	idx, err = SampleFramesQwen3(1, 24, 2, 4, 768)
	if err != nil || !reflect.DeepEqual(idx, []int{0}) {
		t.Errorf("1 frame: %v, %v", idx, err)
	}
	sizeErrs := []struct {
		n, h, w int
		want    error
	}{
		{1, 480, 640, vision.ErrTooSmall},
		{4, 31, 640, vision.ErrTooSmall},
		{4, 32, 6433, vision.ErrAspectRatio},
		{4, 32, 6400, nil},
	}
	for _, tc := range sizeErrs {
		_, _, err := SmartResizeVideoQwen3(tc.n, tc.h, tc.w, 2, 32, 4096, 25165824)
		if (tc.want == nil && err != nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("SmartResizeVideoQwen3(%d, %d, %d): %v, want %v", tc.n, tc.h, tc.w, err, tc.want)
		}
	}
	if got := TimestampsQwen3(nil, 24); got == nil || len(got) != 0 {
		t.Errorf("empty timestamps: %#v", got)
	}
}

// The Qwen2.5-VL (qwen-vl-utils 0.0.10) vectors of docs/preprocessing.md
// ("Test vectors (video)").
func TestVideoQwen25Vectors(t *testing.T) {
	tests := []struct {
		total int
		fps   float64
		h, w  int
		n     int
		idx   []int // nil: not listed
		size  [2]int
		spgts float64
	}{
		{48, 24, 1080, 1920, 4, nil, [2]int{560, 1008}, 1.0},
		{300, 30, 720, 1280, 20, nil, [2]int{560, 1008}, 1.0},
		{7, 25, 480, 640, 4, nil, [2]int{476, 644}, 0.14},
		{1000, 29.97, 1080, 1920, 66, nil, [2]int{560, 1008}, 1.0111121222232333},
		{20000, 30, 1080, 1920, 768, nil, [2]int{336, 644}, 1.7361111111111112},
		{3, 24, 240, 320, 2, []int{0, 2}, [2]int{280, 392}, 0.125},
	}
	for _, tc := range tests {
		idx, sfps, err := SampleFramesQwen25(tc.total, tc.fps, VideoRequestQwen25{})
		if err != nil {
			t.Fatalf("%d@%v: %v", tc.total, tc.fps, err)
		}
		if len(idx) != tc.n || (tc.idx != nil && !reflect.DeepEqual(idx, tc.idx)) || idx[0] != 0 || idx[len(idx)-1] != tc.total-1 {
			t.Errorf("%d@%v: indices %v", tc.total, tc.fps, idx)
		}
		if got := SecondPerGridTS(2, sfps); got != tc.spgts {
			t.Errorf("%d@%v: second_per_grid_ts %v, want %v", tc.total, tc.fps, got, tc.spgts)
		}
		first, final, err := VideoFrameSizeQwen25(len(idx), tc.h, tc.w, VideoRequestQwen25{}, 3136, 12845056)
		if err != nil || first != tc.size || final != tc.size {
			t.Errorf("%d@%v: sizes %v %v, %v; want %v", tc.total, tc.fps, first, final, err, tc.size)
		}
	}
}

func TestVideoQwen25Options(t *testing.T) {
	// nframes rounds to even; one frame fails; both nframes and fps fail.
	idx, _, err := SampleFramesQwen25(100, 25, VideoRequestQwen25{NFrames: 5})
	if err != nil || len(idx) != 4 {
		t.Errorf("nframes 5: %v, %v", idx, err)
	}
	if _, _, err := SampleFramesQwen25(1, 25, VideoRequestQwen25{}); !errors.Is(err, vision.ErrTooSmall) {
		t.Errorf("1 frame: %v", err)
	}
	if _, _, err := SampleFramesQwen25(100, 25, VideoRequestQwen25{NFrames: 4, FPS: 1}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("nframes+fps: %v", err)
	}
	if _, _, err := SampleFramesQwen25(100, 0, VideoRequestQwen25{}); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("unknown fps: %v", err)
	}
	// A small request min_pixels gives frames below the image minimum,
	// which the HF video processor then grows (a second resize).
	first, final, err := VideoFrameSizeQwen25(4, 20, 30, VideoRequestQwen25{MinPixels: 100}, 3136, 12845056)
	if err != nil || first != [2]int{28, 28} || final != [2]int{56, 56} {
		t.Errorf("small min_pixels: %v %v %v", first, final, err)
	}
	// A request max_pixels lowers the bound.
	_, final, err = VideoFrameSizeQwen25(4, 1080, 1920, VideoRequestQwen25{MaxPixels: 200704}, 3136, 12845056)
	if err != nil || final[0]*final[1] > 200704 {
		t.Errorf("max_pixels: %v %v", final, err)
	}
}

// linspace32 follows ATen's two-sided fill: both ends are exact.
func TestLinspace32(t *testing.T) {
	for n := 2; n < 300; n++ {
		got := linspace32(0, 9999, n)
		if got[0] != 0 || got[n-1] != 9999 {
			t.Fatalf("n=%d: ends %d %d", n, got[0], got[n-1])
		}
		for k := 1; k < n; k++ {
			if got[k] < got[k-1] {
				t.Fatalf("n=%d: not monotonic at %d", n, k)
			}
		}
	}
}
