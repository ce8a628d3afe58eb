package video

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// synthClip is a clip made with FFmpeg for the header tests: lavfi sources,
// encoder and muxer settings, and an optional rewrite of the display
// matrices (FFmpeg 5.1's command line cannot write one).
type synthClip struct {
	name   string
	args   []string  // ffmpeg arguments between "-y" and the output
	movie  *[9]int32 // mvhd matrix to write, if not nil
	track  *[9]int32 // tkhd matrix of the first trak to write, if not nil
	goRead bool      // the Go reader is expected to answer
}

const fx = 1 << 16

var (
	rot90   = [9]int32{0, fx, 0, -fx, 0, 0, 0, 0, 1 << 30}
	rot180  = [9]int32{-fx, 0, 0, 0, -fx, 0, 0, 0, 1 << 30}
	rot270  = [9]int32{0, -fx, 0, fx, 0, 0, 0, 0, 1 << 30}
	shifted = [9]int32{fx, 0, 0, 0, fx, 0, 5 << 16, 7 << 16, 1 << 30}
	rot90t  = [9]int32{0, fx, 0, -fx, 0, 0, 48 << 16, 0, 1 << 30}
	hflip   = [9]int32{-fx, 0, 0, 0, fx, 0, 0, 0, 1 << 30}
	scaled  = [9]int32{2 * fx, 0, 0, 0, 2 * fx, 0, 0, 0, 1 << 30}
)

func src(size, rate, dur string) []string {
	return []string{"-f", "lavfi", "-i", "testsrc2=size=" + size + ":rate=" + rate, "-t", dur}
}

func withAudio(size, rate, dur string, audioFirst bool) []string {
	a := append(src(size, rate, dur), "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000", "-t", dur)
	if audioFirst {
		return append(a, "-map", "1:a", "-map", "0:v")
	}
	return append(a, "-map", "0:v", "-map", "1:a")
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var x264 = []string{"-c:v", "libx264", "-preset", "veryfast"}

var synthClips = []synthClip{
	{name: "ntsc.mp4", args: cat(src("176x144", "30000/1001", "1"), x264), goRead: true},
	{name: "film.mov", args: cat(src("64x48", "24000/1001", "1"), x264), goRead: true},
	{name: "60fps_nobf.mp4", args: cat(src("64x48", "60", "0.5"), x264, []string{"-bf", "0"}), goRead: true},
	{name: "12.5fps.mp4", args: cat(src("64x48", "25/2", "2"), x264), goRead: true},
	{name: "1fps_ts600.mp4", args: cat(src("64x48", "1", "4"), x264, []string{"-video_track_timescale", "600"}), goRead: true},
	{name: "ts90000.mp4", args: cat(src("64x48", "25", "1"), x264, []string{"-video_track_timescale", "90000"}), goRead: true},
	{name: "hd_crop.mp4", args: cat(src("1920x1080", "25", "0.12"), []string{"-c:v", "libx264", "-preset", "ultrafast"}), goRead: true},
	{name: "yuv422.mp4", args: cat(src("98x66", "10", "0.5"), x264, []string{"-pix_fmt", "yuv422p"}), goRead: true},
	{name: "gray.mp4", args: cat(src("64x48", "10", "0.5"), x264, []string{"-pix_fmt", "gray"}), goRead: true},
	{name: "10bit.mp4", args: cat(src("66x50", "10", "0.5"), x264, []string{"-pix_fmt", "yuv420p10le"}), goRead: true},
	{name: "interlaced.mp4", args: cat(src("352x288", "25", "0.2"), []string{"-c:v", "libx264", "-preset", "ultrafast", "-flags", "+ildct+ilme", "-x264-params", "interlaced=1"}), goRead: true},
	{name: "cqm.mp4", args: cat(src("64x48", "10", "0.5"), x264, []string{"-x264-params", "cqm=jvt"}), goRead: true},
	{name: "poc2.mp4", args: cat(src("64x48", "10", "0.5"), x264, []string{"-bf", "0", "-x264-params", "keyint=1"}), goRead: true},
	{name: "audio_first.mp4", args: cat(withAudio("64x48", "15", "1", true), x264, []string{"-c:a", "aac"}), goRead: true},
	{name: "audio_after.mov", args: cat(withAudio("64x48", "15", "1", false), x264, []string{"-c:a", "aac"}), goRead: true},
	{name: "faststart.mp4", args: cat(src("64x48", "20", "1"), x264, []string{"-movflags", "+faststart"}), goRead: true},
	{name: "vfr_setpts.mp4", args: cat(src("64x48", "20", "1"), x264, []string{"-vf", "setpts='N*N/TB/400'", "-fps_mode", "passthrough"}), goRead: true},
	{name: "tmcd.mov", args: cat(src("64x48", "25", "0.5"), x264, []string{"-timecode", "01:00:00:00"}), goRead: true},
	{name: "rot90.mp4", args: cat(src("96x64", "10", "0.5"), x264), track: &rot90, goRead: true},
	{name: "rot180.mp4", args: cat(src("96x64", "10", "0.5"), x264), track: &rot180, goRead: true},
	{name: "rot270.mp4", args: cat(src("96x64", "10", "0.5"), x264), track: &rot270, goRead: true},
	{name: "rot90_translated.mp4", args: cat(src("96x64", "10", "0.5"), x264), track: &rot90t, goRead: true},
	{name: "shifted.mp4", args: cat(src("96x64", "10", "0.5"), x264), track: &shifted, goRead: true},
	{name: "movie_rot90.mp4", args: cat(src("96x64", "10", "0.5"), x264), movie: &rot90, goRead: true},
	{name: "movie_and_track_rot90.mp4", args: cat(src("96x64", "10", "0.5"), x264), movie: &rot90, track: &rot90, goRead: true},
	{name: "hflip.mp4", args: cat(src("96x64", "10", "0.5"), x264), track: &hflip},
	{name: "scaled.mp4", args: cat(src("96x64", "10", "0.5"), x264), track: &scaled},
	{name: "hevc.mp4", args: cat(src("98x66", "10", "0.5"), []string{"-c:v", "libx265", "-x265-params", "log-level=error"}), goRead: true},
	{name: "hevc_hvc1_444.mp4", args: cat(src("64x48", "12", "0.5"), []string{"-c:v", "libx265", "-pix_fmt", "yuv444p", "-tag:v", "hvc1", "-x265-params", "log-level=error"}), goRead: true},
	{name: "hevc_422_10.mov", args: cat(src("66x50", "12", "0.5"), []string{"-c:v", "libx265", "-pix_fmt", "yuv422p10le", "-x265-params", "log-level=error"}), goRead: true},
	{name: "cover.mp4", args: []string{"-f", "lavfi", "-t", "0.5", "-i", "testsrc2=size=64x48:rate=10", "-f", "lavfi", "-t", "0.1",
		"-i", "color=red:size=32x32", "-map", "0:v", "-map", "1:v", "-c:v:0", "libx264", "-c:v:1", "png", "-disposition:v:1", "attached_pic"}},
	{name: "fragmented.mp4", args: cat(src("64x48", "10", "1"), x264, []string{"-movflags", "frag_keyframe+empty_moov"})},
	{name: "mpeg4.mp4", args: cat(src("64x48", "10", "0.5"), []string{"-c:v", "mpeg4"})},
	{name: "mjpeg.mov", args: cat(src("64x48", "10", "0.5"), []string{"-c:v", "mjpeg"})},
	{name: "av1.mp4", args: cat(src("64x48", "10", "0.5"), []string{"-c:v", "libaom-av1", "-cpu-used", "8"})},
	{name: "vp9.mp4", args: cat(src("64x48", "10", "0.5"), []string{"-c:v", "libvpx-vp9", "-deadline", "realtime"})},
	{name: "vp9_ntsc.webm", args: cat(src("80x64", "30000/1001", "1"), []string{"-c:v", "libvpx-vp9", "-deadline", "realtime"}), goRead: true},
	{name: "vp9_film.webm", args: cat(src("80x64", "24000/1001", "1"), []string{"-c:v", "libvpx-vp9", "-deadline", "realtime"}), goRead: true},
	{name: "vp9_444.webm", args: cat(src("80x64", "10", "0.5"), []string{"-c:v", "libvpx-vp9", "-deadline", "realtime", "-pix_fmt", "yuv444p"}), goRead: true},
	{name: "vp9_alpha.webm", args: cat(src("80x64", "10", "0.5"), []string{"-vf", "format=yuva420p", "-c:v", "libvpx-vp9", "-deadline", "realtime"}), goRead: true},
	{name: "vp8.webm", args: cat(src("82x62", "25", "1"), []string{"-c:v", "libvpx", "-deadline", "realtime"}), goRead: true},
	{name: "vp8_audio_first.webm", args: cat(withAudio("64x48", "15", "1", true), []string{"-c:v", "libvpx", "-deadline", "realtime", "-c:a", "libopus"}), goRead: true},
	{name: "vp9_audio_after.mkv", args: cat(withAudio("64x48", "15", "1", false), []string{"-c:v", "libvpx-vp9", "-deadline", "realtime", "-c:a", "libvorbis"}), goRead: true},
	{name: "h264.mkv", args: cat(src("98x66", "30000/1001", "1"), x264), goRead: true},
	{name: "hevc.mkv", args: cat(src("98x66", "25", "0.5"), []string{"-c:v", "libx265", "-x265-params", "log-level=error"}), goRead: true},
	{name: "av1.webm", args: cat(src("64x48", "10", "0.5"), []string{"-c:v", "libaom-av1", "-cpu-used", "8"})},
	{name: "mpeg4.mkv", args: cat(src("64x48", "10", "0.5"), []string{"-c:v", "mpeg4"})},
	{name: "rotate_tag.mkv", args: cat(src("64x48", "10", "0.5"), x264, []string{"-metadata:s:v:0", "ROTATE=90"})},
	{name: "live.webm", args: cat(src("64x48", "10", "1"), []string{"-c:v", "libvpx-vp9", "-deadline", "realtime", "-live", "1", "-f", "webm"})},
}

// patchMatrix writes m over the display matrix of the first box of type
// typ ("mvhd" or "tkhd", version 0) in b.
func patchMatrix(b []byte, typ string, m [9]int32) bool {
	i := bytes.Index(b, []byte(typ))
	if i < 4 || i+4+1 > len(b) || b[i+4] != 0 {
		return false
	}
	off := i + 4 + 36 // mvhd: version/flags, times, timescale, duration, rate, volume, reserved
	if typ == "tkhd" {
		off = i + 4 + 40
	}
	if off+36 > len(b) {
		return false
	}
	for k, v := range m {
		binary.BigEndian.PutUint32(b[off+4*k:], uint32(v))
	}
	return true
}

// makeClip runs FFmpeg for c into dir and returns the file's bytes.
func makeClip(t *testing.T, dir string, c synthClip) []byte {
	t.Helper()
	out := filepath.Join(dir, c.name)
	live := c.name == "live.webm"
	args := append([]string{"-v", "error", "-nostdin", "-y"}, c.args...)
	args = append(args, "-map_metadata", "-1")
	if live {
		// A muxer that cannot seek back leaves sizes unknown and no duration.
		args = append(args, "pipe:1")
	} else {
		args = append(args, out)
	}
	cmd := exec.Command("ffmpeg", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: ffmpeg: %v: %s", c.name, err, stderr.Bytes())
	}
	b := stdout.Bytes()
	if !live {
		var err error
		if b, err = os.ReadFile(out); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if c.movie != nil && !patchMatrix(b, "mvhd", *c.movie) || c.track != nil && !patchMatrix(b, "tkhd", *c.track) {
		t.Fatalf("%s: no matrix to patch", c.name)
	}
	return b
}

// headerOf opens data with d and returns Header's answer and whether the Go
// reader gave it.
func headerOf(t *testing.T, d *Decoder, data []byte) (Info, error, bool) {
	t.Helper()
	v, err := d.Open(data)
	if err != nil {
		return Info{}, err, false
	}
	defer v.Close()
	info, err := v.Header(context.Background())
	return info, err, v.headOK
}

// headerClip is one input of TestHeaderMatchesFFprobe.
type headerClip struct {
	name   string
	data   []byte
	goRead bool
}

// repoClips are the video files of the repository's test data; the Go
// reader answers for all but those of notGo.
func repoClips(t *testing.T) []headerClip {
	notGo := map[string]bool{"mpeg4.avi": true}
	var out []headerClip
	for _, pat := range []string{"testdata/*.*", "../../internal/systest/hardening/testdata/video/*.*"} {
		files, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if IsVideo(b) {
				out = append(out, headerClip{filepath.Base(f), b, !notGo[filepath.Base(f)]})
			}
		}
	}
	if len(out) < 13 {
		t.Fatalf("only %d clips in the test data", len(out))
	}
	return out
}

// TestHeaderMatchesFFprobe: on every clip of the test data and on clips
// synthesized with FFmpeg (frame rates, timescales, crops, chroma formats,
// bit depths, interlacing, scaling lists, audio tracks before and after,
// display matrices, HEVC, VP8, VP9, Matroska and WebM), Header gives the
// same Info, or the same error, whether the headers are read in Go or by
// ffprobe; and the Go reader answers exactly for the files it is meant to.
func TestHeaderMatchesFFprobe(t *testing.T) {
	needFFmpeg(t)
	goDec := newDecoder(t, Options{})
	ffDec := newDecoder(t, Options{FFprobeHeaders: true})
	clips := repoClips(t)
	dir := t.TempDir()
	for _, c := range synthClips {
		if testing.Short() {
			break // FFmpeg takes a few seconds to make them
		}
		clips = append(clips, headerClip{c.name, makeClip(t, dir, c), c.goRead})
	}
	answered := 0
	for _, c := range clips {
		t.Run(c.name, func(t *testing.T) {
			want, werr, viaGo := headerOf(t, ffDec, c.data)
			if viaGo {
				t.Fatal("FFprobeHeaders read the headers in Go")
			}
			got, gerr, viaGo := headerOf(t, goDec, c.data)
			if viaGo != c.goRead {
				t.Errorf("read in Go: %v, want %v", viaGo, c.goRead)
			}
			if viaGo {
				answered++
			}
			if (werr == nil) != (gerr == nil) || werr != nil && gerr.Error() != werr.Error() {
				t.Fatalf("error %v, ffprobe's %v", gerr, werr)
			}
			if got != want {
				t.Fatalf("Go reader %+v\nffprobe   %+v", got, want)
			}
		})
	}
	t.Logf("%d clips, %d read in Go", len(clips), answered)
}

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
