package video

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestReduceRational(t *testing.T) {
	for _, c := range []struct {
		num, den, max int64
		n, d          int64
	}{
		{50, 2, math.MaxInt32, 25, 1},
		{0, 7, math.MaxInt32, 0, 1},
		{1000000000, 41666666, 30000, 24, 1},
		{15360 * 60, 15360 * 41 / 15, math.MaxInt32, 900, 41},
		{1 << 40, 3, 30000, 30000, 1},
		{3, 1 << 40, 30000, 0, 1},
	} {
		n, d, ok := reduceRational(c.num, c.den, c.max)
		if !ok || n != c.n || d != c.d {
			t.Errorf("reduceRational(%d, %d, %d) = %d/%d %v, want %d/%d", c.num, c.den, c.max, n, d, ok, c.n, c.d)
		}
	}
	if _, _, ok := reduceRational(1, 0, 5); ok {
		t.Error("a zero denominator was reduced")
	}
}

func TestRescaleRound(t *testing.T) {
	for _, c := range []struct {
		a, b, c uint64
		want    int64
	}{
		{1500, 1000000, 1000, 1500000},
		{1, 1000000, 3, 333333},
		{1, 1000000, 6, 166667},
		{1, 1, 2, 1}, // halves away from zero
		{3, 1, 2, 2},
		{1 << 62, 1000000, 1 << 40, (1 << 22) * 1000000},
	} {
		if got, ok := rescaleRound(c.a, c.b, c.c); !ok || got != c.want {
			t.Errorf("rescaleRound(%d, %d, %d) = %d %v, want %d", c.a, c.b, c.c, got, ok, c.want)
		}
	}
	for _, c := range [][3]uint64{{1 << 63, 1000000, 1}, {5, 5, 0}} {
		if _, ok := rescaleRound(c[0], c[1], c[2]); ok {
			t.Errorf("rescaleRound%v did not overflow", c)
		}
	}
}

func TestFFprobeSeconds(t *testing.T) {
	for us, want := range map[int64]float64{1500000: 1.5, 41667: 0.041667, 7812: 0.007812, 1: 0.000001, 2733333: 2.733333} {
		if got := ffprobeSeconds(us); got != want {
			t.Errorf("ffprobeSeconds(%d) = %v, want %v", us, got, want)
		}
	}
}

func TestMatrixRotation(t *testing.T) {
	id := [9]int32{fx, 0, 0, 0, fx, 0, 0, 0, 1 << 30}
	for _, c := range []struct {
		m   [9]int32
		rot int
		ok  bool
	}{
		{id, 0, true}, {rot90, 90, true}, {rot180, 180, true}, {rot270, 270, true}, {rot90t, 90, true}, {shifted, 0, true},
		{hflip, 0, false}, {scaled, 0, false}, {[9]int32{fx, 0, 1, 0, fx, 0, 0, 0, 1 << 30}, 0, false},
	} {
		if rot, ok := matrixRotation(c.m); rot != c.rot || ok != c.ok {
			t.Errorf("matrixRotation(%v) = %d %v, want %d %v", c.m, rot, ok, c.rot, c.ok)
		}
	}
	// The movie matrix applies after the track's: two quarter turns make a
	// half turn; a product out of the 32-bit range is refused.
	m, ok := mulDisplayMatrix(rot90, rot90)
	if rot, rok := matrixRotation(m); !ok || !rok || rot != 180 {
		t.Errorf("rot90 × rot90 = %v (%v), rotation %d", m, ok, rot)
	}
	big := [9]int32{math.MaxInt32, math.MaxInt32, 0, 0, fx, 0, 0, 0, 1 << 30}
	if _, ok := mulDisplayMatrix(big, big); ok {
		t.Error("an overflowing product was accepted")
	}
}

// TestHeaderCtx: Header answers a cancelled context with its error even
// when the Go reader has the headers.
func TestHeaderCtx(t *testing.T) {
	d := newDecoder(t, Options{})
	v := openClip(t, d, "h264_moov_end.mp4")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Header(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// sane fails t when an Info the Go reader accepted is not one Header could
// report.
func sane(t *testing.T, info Info) {
	t.Helper()
	if info.Width <= 0 || info.Height <= 0 || info.Width > maxSide || info.Height > maxSide || !codecs[info.Codec] ||
		!(info.FPS > 0) || math.IsInf(info.FPS, 0) || !(info.Duration > 0) || math.IsInf(info.Duration, 0) ||
		info.DeclaredFrames < 0 || info.Frames != 0 || info.Rotation%90 != 0 || info.Rotation < 0 || info.Rotation > 270 {
		t.Fatalf("accepted %+v", info)
	}
}

// FuzzParseHeader: no input makes the MP4 or Matroska reader panic, loop or
// accept values Header could not report. The seeds are the test data's
// clips.
func FuzzParseHeader(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && IsVideo(b) {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range []string{ContainerMP4, ContainerMatroska} {
			if info, ok := parseHeader(data, c); ok {
				sane(t, info)
			}
		}
	})
}

// FuzzCodecHeaders: the parameter-set and key-frame readers take any bytes
// and only accept positive sizes within bounds.
func FuzzCodecHeaders(f *testing.F) {
	f.Add([]byte{1, 0x64, 0, 0x0a, 0xff, 0xe1, 0, 0x19, 0x67, 0x64, 0, 0x0a, 0xac, 0xd9, 0x41, 0x41, 0xfb, 0x01, 0x10, 0, 0, 3, 0, 0x10, 0, 0, 3, 0, 0x20, 0xf1, 0x22, 0x59, 0x60})
	f.Add([]byte{0x82, 0x49, 0x83, 0x42, 0x00, 0x04, 0xf0, 0x03, 0xf6, 0x00})
	f.Add([]byte{0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x52, 0x00, 0x3e, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		for name, fn := range map[string]func([]byte) (int, int, bool){
			"avcC": avcConfigSize, "hvcC": hevcConfigSize, "h264 sps": h264SPSSize, "hevc sps": hevcSPSSize,
			"vp8": vp8KeyframeSize, "vp9": vp9KeyframeSize,
		} {
			if w, h, ok := fn(data); ok && (w <= 0 || h <= 0 || w > maxSide || h > maxSide) {
				t.Fatalf("%s accepted %dx%d", name, w, h)
			}
		}
	})
}
