package video

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/imaging"
)

// TestSkipQualifies: which test clips the skipping decode takes. The edit
// list that hides a frame, the display matrix and a track without
// non-reference pictures keep the container's decode.
func TestSkipQualifies(t *testing.T) {
	d := newDecoder(t, Options{})
	for name, want := range map[string]bool{
		"h264_moov_end.mp4": true, "h264_portrait_faststart.mp4": true, "long_40s.mp4": true,
		"long_800f.mp4": true, "odd_yuv444.mov": true, "three_frames.mp4": true, "vfr.mp4": true,
		"editlist_cut.mp4": false, "rotated.mp4": false, "one_frame.mp4": false,
		"vp9.webm": false, "mpeg4.avi": false,
	} {
		v := openClip(t, d, name)
		if got := v.skip != nil; got != want {
			t.Errorf("%s: skipping decode %v, want %v", name, got, want)
		}
	}
	if v := openClip(t, newDecoder(t, Options{DecodeAll: true}), "long_40s.mp4"); v.skip != nil {
		t.Error("DecodeAll: the skipping decode is still used")
	}
}

// encodeClip encodes a clip with FFmpeg's libx264 into dir.
func encodeClip(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	cmd := append([]string{"-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=25", "-t", "6",
		"-c:v", "libx264", "-pix_fmt", "yuv420p"}, args...)
	if b, err := exec.Command("ffmpeg", append(cmd, out)...).CombinedOutput(); err != nil {
		t.Skipf("ffmpeg cannot synthesize %s (libx264?): %v: %s", name, err, b)
	}
	return out
}

// TestSkipSameFrames: clips with B-frames (non-reference, and reference
// ones under a B-pyramid) give, with the unsampled non-reference pictures
// left out, the same frames as the container's full decode and as the
// reference command line, for selections that keep some non-reference
// pictures and drop the others.
func TestSkipSameFrames(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	clips := []string{
		encodeClip(t, dir, "pyramid.mp4", "-bf", "3", "-x264-params", "b-pyramid=normal"),
		encodeClip(t, dir, "nopyramid.mp4", "-bf", "4", "-x264-params", "b-pyramid=none:keyint=40"),
		encodeClip(t, dir, "strict.mp4", "-bf", "2", "-x264-params", "b-pyramid=strict:ref=3:scenecut=0:keyint=30", "-movflags", "+faststart"),
		filepath.Join("testdata", "long_800f.mp4"),
	}
	skipping, all := newDecoder(t, Options{}), newDecoder(t, Options{DecodeAll: true})
	for _, path := range clips {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			v, err := skipping.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if v.skip == nil {
				t.Fatal("the skipping decode does not take the clip")
			}
			info, err := v.Probe(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			ref := referenceFrames(t, path)
			fb := info.Width * info.Height * 3
			if len(ref) != info.Frames*fb {
				t.Fatalf("reference has %d bytes, want %d frames", len(ref), info.Frames)
			}
			n := info.Frames
			for _, idx := range [][]int{
				{0, 1, 2, 3, n / 2, n/2 + 1, n - 2, n - 1},
				{1, 1, 5, 9, 13, 17, n - 3},
				linspace(n, 12),
				{n - 1},
				seq(min(n, DefaultMaxFrames)),
			} {
				for _, dec := range []*Decoder{skipping, all} {
					w, err := dec.Open(data)
					if err != nil {
						t.Fatal(err)
					}
					checkFrames(t, w, info, idx, ref, fb)
					w.Close()
				}
			}
		})
	}
	assertNoChildren(t)
}

func linspace(n, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = (i*(n-1) + (k-1)/2) / (k - 1)
	}
	return out
}

// referenceFrames is every frame of the reference command line.
func referenceFrames(t *testing.T, path string) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0",
		"-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkFrames decodes idx from v and compares each frame with ref.
func checkFrames(t *testing.T, v *Video, info Info, idx []int, ref []byte, fb int) {
	t.Helper()
	got := 0
	n, err := v.Decode(context.Background(), info, idx, func(k int, f *imaging.RGB) error {
		if want := ref[idx[k]*fb : (idx[k]+1)*fb]; !bytes.Equal(f.Pix, want) {
			t.Errorf("skip %v: indices %v: frame %d (source %d) differs from the reference", v.skip != nil, idx, k, idx[k])
		}
		got++
		return nil
	})
	if err != nil || n != info.Frames || got != len(idx) {
		t.Fatalf("skip %v: indices %v: %d frames of %d, %d decoded, %v", v.skip != nil, idx, got, len(idx), n, err)
	}
}

// TestSkipOtherCount: a plan from another frame count than the
// container's decodes from the container, which reports the count.
func TestSkipOtherCount(t *testing.T) {
	needFFmpeg(t)
	v := openClip(t, newDecoder(t, Options{}), "long_40s.mp4")
	info, err := v.Header(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	info.Frames = info.DeclaredFrames - 1
	n, err := v.Decode(context.Background(), info, []int{0, 5}, func(int, *imaging.RGB) error { return nil })
	if !errors.Is(err, ErrFrameCount) || n != info.DeclaredFrames {
		t.Fatalf("got %d, %v; want %d and ErrFrameCount", n, err, info.DeclaredFrames)
	}
	assertNoChildren(t)
}

// TestSkipRedo: when the stream without the left-out pictures does not give
// the promised frames (here a sample cut short behind the parser's back),
// the decode asks for a repeat, and the repeat decodes from the container.
func TestSkipRedo(t *testing.T) {
	needFFmpeg(t)
	v := openClip(t, newDecoder(t, Options{}), "long_40s.mp4")
	info, err := v.Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v.skip.samples[len(v.skip.samples)/2].size-- // the NAL lengths no longer tile it
	idx := []int{0, 50, 199}
	nop := func(int, *imaging.RGB) error { return nil }
	if _, err := v.Decode(context.Background(), info, idx, nop); !errors.Is(err, ErrRedo) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, want ErrRedo", err)
	}
	ref := referenceFrames(t, filepath.Join("testdata", "long_40s.mp4"))
	checkFrames(t, v, info, idx, ref, info.Width*info.Height*3)
	assertNoChildren(t)
}

// FuzzH264Skip: no input makes the sample-table, avcC, NAL or SEI readers
// panic, and what they accept is consistent: samples inside the file, the
// presentation order a permutation, plans that keep every sampled frame.
func FuzzH264Skip(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.mp4")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte{0, 0, 0, 5, 0x65, 0x88, 0x80, 0x40, 0x00, 0, 0, 0, 2, 0x01, 0x9a})
	f.Add([]byte{6, 5, 3, 1, 2, 3, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		h264SampleDroppable(data, 4)
		h264SampleDroppable(data, 1)
		h264SEIPictureOnly(data)
		avcConfigParams(data)
		s, ok := h264Skippable(data)
		if !ok {
			return
		}
		n := len(s.samples)
		seen := make([]bool, n)
		for _, d := range s.order {
			if d < 0 || d >= n || seen[d] {
				t.Fatalf("order %v is not a permutation", s.order)
			}
			seen[d] = true
		}
		for _, sm := range s.samples {
			if sm.off < 0 || sm.size < 1 || sm.off+int64(sm.size) > int64(len(data)) {
				t.Fatalf("sample %+v outside %d bytes", sm, len(data))
			}
		}
		p := s.plan([]int{0, n - 1})
		if len(p.indices) != min(2, n) || p.drop[s.order[0]] || p.drop[s.order[n-1]] {
			t.Fatalf("plan %+v drops a sampled frame", p)
		}
		var out bytes.Buffer
		if err := s.writeStream(&out, bytes.NewReader(data), p.drop); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPOCOrder: the decoder's order computed from the slice headers agrees
// with the composition times on every qualifying clip, and a container
// order that differs from it is caught.
func TestPOCOrder(t *testing.T) {
	for _, name := range []string{"h264_moov_end.mp4", "long_800f.mp4", "vfr.mp4", "odd_yuv444.mov"} {
		data := readClip(t, name)
		s, ok := h264Skippable(data)
		if !ok {
			t.Fatalf("%s does not qualify", name)
		}
		if len(s.order) < 3 || slices.Equal(s.order, seq(len(s.order))) {
			t.Fatalf("%s: no reordered frames to test with", name)
		}
		p := 0
		for s.order[p] == p {
			p++
		}
		s.order[p], s.order[p+1] = s.order[p+1], s.order[p]
		if s.pocOrderAgrees(data) {
			t.Errorf("%s: frames %d and %d swapped in the container's order still agree", name, p, p+1)
		}
	}
}

// TestSkipCallbackError: fn's error stops a skipping decode and comes back
// as is, with no child left and no repeat asked for.
func TestSkipCallbackError(t *testing.T) {
	needFFmpeg(t)
	v := openClip(t, newDecoder(t, Options{}), "long_800f.mp4")
	info, err := v.Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	_, err = v.Decode(context.Background(), info, linspace(info.Frames, 40), func(k int, _ *imaging.RGB) error {
		if k == 3 {
			return stop
		}
		return nil
	})
	if err != stop || v.full.Load() {
		t.Fatalf("err = %v (full %v), want fn's error", err, v.full.Load())
	}
	assertNoChildren(t)
}
