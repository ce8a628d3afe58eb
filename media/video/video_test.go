package video

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/imaging"
)

func needFFmpeg(t testing.TB) {
	t.Helper()
	for _, b := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed (Debian package ffmpeg): video decoding tests skipped", b)
		}
	}
}

func readClip(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newDecoder(t testing.TB, o Options) *Decoder {
	t.Helper()
	d, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func openClip(t testing.TB, d *Decoder, name string) *Video {
	t.Helper()
	v, err := d.Open(readClip(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// The expected values come from scripts/golden/video_reference.py (frames
// counted from the reference command line's output, fps from ffprobe).
var clipInfo = []struct {
	name          string
	container     string
	codec         string
	width, height int
	frames        int
	fps           float64
}{
	{"h264_moov_end.mp4", ContainerMP4, "h264", 96, 64, 50, 25},
	{"h264_portrait_faststart.mp4", ContainerMP4, "h264", 72, 128, 45, 30},
	{"vp9.webm", ContainerMatroska, "vp9", 80, 64, 36, 24},
	{"mpeg4.avi", ContainerAVI, "mpeg4", 98, 66, 36, 15},
	{"odd_yuv444.mov", ContainerMP4, "h264", 99, 67, 24, 20},
	{"vfr.mp4", ContainerMP4, "h264", 96, 64, 60, 900.0 / 41},
	{"three_frames.mp4", ContainerMP4, "h264", 64, 48, 3, 24},
	{"one_frame.mp4", ContainerMP4, "h264", 64, 48, 1, 24},
	{"rotated.mp4", ContainerMP4, "h264", 64, 96, 25, 25},
	{"long_40s.mp4", ContainerMP4, "h264", 64, 48, 200, 5},
	{"editlist_cut.mp4", ContainerMP4, "h264", 96, 64, 37, 25},
}

// TestDeclaredCountMismatch: the edit list of editlist_cut.mp4 hides one of
// the 38 frames its container declares; a decode planned from the declared
// count reports ErrFrameCount with the decoded count.
func TestDeclaredCountMismatch(t *testing.T) {
	needFFmpeg(t)
	d := newDecoder(t, Options{})
	v := openClip(t, d, "editlist_cut.mp4")
	head, err := v.Header(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if head.DeclaredFrames != 38 || head.Frames != 0 {
		t.Fatalf("header %+v", head)
	}
	info := head
	info.Frames = head.DeclaredFrames
	n, err := v.Decode(context.Background(), info, []int{0, 20, 37}, func(int, *imaging.RGB) error { return nil })
	if !errors.Is(err, ErrFrameCount) || !errors.Is(err, ErrCorrupt) || n != 37 {
		t.Fatalf("decoded %d, err %v; want 37 and ErrFrameCount", n, err)
	}
	info.Frames = 37
	if n, err := v.Decode(context.Background(), info, nil, func(int, *imaging.RGB) error { t.Fatal("frame for no index"); return nil }); err != nil || n != 37 {
		t.Fatalf("count only: decoded %d, err %v", n, err)
	}
	if n, err := v.Decode(context.Background(), info, []int{0, 20, 36}, func(int, *imaging.RGB) error { return nil }); err != nil || n != 37 {
		t.Fatalf("decoded %d, err %v", n, err)
	}
}

func TestProbe(t *testing.T) {
	needFFmpeg(t)
	d := newDecoder(t, Options{})
	for _, c := range clipInfo {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			info, err := openClip(t, d, c.name).Probe(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Container != c.container || info.Codec != c.codec || info.Width != c.width || info.Height != c.height ||
				info.Frames != c.frames || info.FPS != c.fps || !(info.Duration > 0) {
				t.Errorf("got %+v, want %+v", info, c)
			}
		})
	}
}

// decodeAll returns every frame of a clip with the reference command line
// (no select filter), in one buffer.
func decodeAll(t *testing.T, name string) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", filepath.Join("testdata", name), "-map", "0:v:0",
		"-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSelectedFramesEqualFullDecode: the frames of the select pass are
// byte-identical to the same frames of a full decode by the reference
// command, for every clip, with repeated indices too.
func TestSelectedFramesEqualFullDecode(t *testing.T) {
	needFFmpeg(t)
	d := newDecoder(t, Options{})
	for _, c := range clipInfo {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := openClip(t, d, c.name)
			info, err := v.Probe(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			all := decodeAll(t, c.name)
			fb := info.Width * info.Height * 3
			if len(all) != info.Frames*fb {
				t.Fatalf("full decode has %d bytes, want %d frames of %d", len(all), info.Frames, fb)
			}
			n := info.Frames
			for _, idx := range [][]int{
				{0, 0, n / 3, n / 2, n / 2, n - 1, n - 1},
				seq(n), // every frame: no select filter
			} {
				got := 0
				_, err := v.Decode(context.Background(), info, idx, func(k int, f *imaging.RGB) error {
					if k != got {
						t.Fatalf("frame k=%d, want %d", k, got)
					}
					got++
					if f.Width != info.Width || f.Height != info.Height {
						t.Fatalf("frame %d is %dx%d", k, f.Width, f.Height)
					}
					want := all[idx[k]*fb : (idx[k]+1)*fb]
					if !bytes.Equal(f.Pix, want) {
						t.Fatalf("indices %v: frame %d (source %d) differs from the full decode", idx, k, idx[k])
					}
					f.Pix[0] ^= 0xff // the callee owns the frame: a repeat must not see this
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if got != len(idx) {
					t.Fatalf("%d frames for %d indices", got, len(idx))
				}
			}
		})
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestLongSelect(t *testing.T) {
	needFFmpeg(t)
	// 768 of 800 frames: a select expression FFmpeg must parse.
	d := newDecoder(t, Options{})
	v := openClip(t, d, "long_800f.mp4")
	info, err := v.Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, 0, 768)
	for k := range 768 {
		idx = append(idx, k*799/767)
	}
	n := 0
	if _, err := v.Decode(context.Background(), info, idx, func(k int, f *imaging.RGB) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 768 {
		t.Fatalf("%d frames", n)
	}
}

func TestErrors(t *testing.T) {
	needFFmpeg(t)
	ctx := context.Background()
	mp4 := readClip(t, "h264_moov_end.mp4")
	cases := []struct {
		name string
		o    Options
		data []byte
		want error
	}{
		{"bytes cap", Options{MaxBytes: 1000}, mp4, ErrTooLarge},
		{"duration cap", Options{MaxDuration: time.Second}, mp4, ErrTooLarge},
		{"frame pixels cap", Options{MaxFramePixels: 95 * 64}, mp4, ErrTooLarge},
		{"jpeg", Options{}, []byte{0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0}, ErrUnsupported},
		{"gif not allowed", Options{}, []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00"), ErrUnsupported},
		{"truncated mp4 (index at the end)", Options{}, mp4[:len(mp4)/2], ErrCorrupt},
		{"garbage matroska", Options{}, append([]byte{0x1a, 0x45, 0xdf, 0xa3}, bytes.Repeat([]byte{0x55}, 200)...), ErrCorrupt},
		{"garbage mp4", Options{}, append([]byte("\x00\x00\x00\x18ftypisom"), bytes.Repeat([]byte{7}, 300)...), ErrCorrupt},
		{"no ffprobe", Options{FFprobe: "/nonexistent/ffprobe"}, mp4, ErrUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDecoder(t, c.o)
			v, err := d.Open(c.data)
			if err == nil {
				defer v.Close()
				_, err = v.Probe(ctx)
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
	t.Run("sampled frames cap", func(t *testing.T) {
		d := newDecoder(t, Options{MaxFrames: 3})
		v := openClip(t, d, "h264_moov_end.mp4")
		info, err := v.Probe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Decode(ctx, info, []int{0, 1, 2, 3}, func(int, *imaging.RGB) error { return nil })
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v", err)
		}
		for _, bad := range [][]int{{-1}, {50}, {3, 2}} {
			if _, err := v.Decode(ctx, info, bad, func(int, *imaging.RGB) error { return nil }); err == nil {
				t.Errorf("indices %v accepted", bad)
			}
		}
	})
	t.Run("callback error", func(t *testing.T) {
		d := newDecoder(t, Options{})
		v := openClip(t, d, "h264_moov_end.mp4")
		info, err := v.Probe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		stop := errors.New("stop")
		_, err = v.Decode(ctx, info, seq(info.Frames), func(k int, _ *imaging.RGB) error {
			if k == 3 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) {
			t.Fatalf("err = %v", err)
		}
		assertNoChildren(t)
	})
}

// TestCancel: cancelling the context kills FFmpeg, the call returns the
// context's error, and no child (zombie or running) is left.
func TestCancel(t *testing.T) {
	needFFmpeg(t)
	d := newDecoder(t, Options{})
	v := openClip(t, d, "long_800f.mp4")
	info, err := v.Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = v.Decode(ctx, info, seq(700), func(k int, _ *imaging.RGB) error {
		if k == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	assertNoChildren(t)

	// A context that is already done stops Probe too.
	if _, err := v.Probe(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("probe err = %v", err)
	}
	assertNoChildren(t)
}

// assertNoChildren fails when this process has a child process (running
// or zombie), read from /proc (skipped elsewhere).
func assertNoChildren(t *testing.T) {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	me := strconv.Itoa(os.Getpid())
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == me {
			t.Errorf("child process left: %s", strings.TrimSpace(s))
		}
	}
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		data string
		want string
	}{
		{"\x00\x00\x00\x20ftypisom\x00\x00", ContainerMP4},
		{"\x00\x00\x00\x08wide\x00\x00\x00\x00", ContainerMP4},
		{"\x1a\x45\xdf\xa3\x01", ContainerMatroska},
		{"RIFF\x00\x00\x00\x00AVI LIST", ContainerAVI},
		{"RIFF\x00\x00\x00\x00WEBPVP8 ", ""},
		{"GIF89a......", ContainerGIF},
		{"\xff\xd8\xff\xe0", ""},
		{"", ""},
		{"\x00\x00\x00\x20ftyp", ""}, // too short
	} {
		if got := Sniff([]byte(c.data)); got != c.want {
			t.Errorf("Sniff(%q) = %q, want %q", c.data, got, c.want)
		}
	}
}

func TestSelectExpr(t *testing.T) {
	for _, c := range []struct {
		idx  []int
		want string
	}{
		{[]int{5}, `select='eq(n\,5)'`},
		{[]int{0, 1, 2}, `select='between(n\,0\,2)'`},
		{[]int{0, 4, 5, 9}, `select='(eq(n\,0)+(between(n\,4\,5)+eq(n\,9)))'`},
	} {
		if got := selectExpr(c.idx); got != c.want {
			t.Errorf("selectExpr(%v) = %s, want %s", c.idx, got, c.want)
		}
	}
}

// TestStartBeforePlan: a decoding started before the plan waits for its
// selection, gives the same frames as Decode, refuses a second Frames, and
// leaves no child behind when closed unused or handed a bad selection.
func TestStartBeforePlan(t *testing.T) {
	needFFmpeg(t)
	ctx := context.Background()
	d := newDecoder(t, Options{})
	v := openClip(t, d, "h264_moov_end.mp4")
	dec, err := v.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err := v.Probe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{0, 7, 7, 49}
	var got [][]byte
	if _, err := dec.Frames(info, idx, func(k int, f *imaging.RGB) error { got = append(got, f.Pix); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := dec.Frames(info, idx, func(int, *imaging.RGB) error { return nil }); err == nil {
		t.Error("second Frames accepted")
	}
	dec.Close()
	var want [][]byte
	if _, err := v.Decode(ctx, info, idx, func(k int, f *imaging.RGB) error { want = append(want, f.Pix); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(idx) || len(want) != len(idx) {
		t.Fatalf("%d and %d frames", len(got), len(want))
	}
	for k := range idx {
		if !bytes.Equal(got[k], want[k]) {
			t.Errorf("frame %d differs", k)
		}
	}

	unused, err := v.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let it reach the selection pipe
	unused.Close()
	assertNoChildren(t)

	bad, err := v.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Frames(info, []int{3, 2}, func(int, *imaging.RGB) error { return nil }); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unsorted selection: err = %v", err)
	}
	bad.Close()
	assertNoChildren(t)
}

// TestRecycle: frames read into buffers given back with Recycle equal the
// frames of a decode that keeps every buffer, and the buffers are reused.
func TestRecycle(t *testing.T) {
	needFFmpeg(t)
	ctx := context.Background()
	d := newDecoder(t, Options{})
	v := openClip(t, d, "h264_moov_end.mp4")
	info, err := v.Probe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{0, 3, 7, 7, 20, 21, 35, 49}
	var want [][]byte
	if _, err := v.Decode(ctx, info, idx, func(k int, f *imaging.RGB) error { want = append(want, f.Pix); return nil }); err != nil {
		t.Fatal(err)
	}
	dec, err := v.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	given := map[*uint8]bool{}
	reused := 0
	_, err = dec.Frames(info, idx, func(k int, f *imaging.RGB) error {
		if given[&f.Pix[0]] {
			reused++
		}
		if !bytes.Equal(f.Pix, want[k]) {
			t.Errorf("frame %d differs", k)
		}
		given[&f.Pix[0]] = true
		for i := range f.Pix {
			f.Pix[i] = 0x5a // what the callee did with it must not matter
		}
		dec.Recycle(f.Pix)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if reused == 0 {
		t.Error("no recycled buffer was read into")
	}
}
