package videoprep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/tensormem"
)

// Flags for BenchmarkVideoFile (scripts/bench/video_bench.sh passes them).
var (
	benchVideo = flag.String("video", "", "BenchmarkVideoFile: the video file to preprocess")
	benchModel = flag.String("video-model", "qwen3-vl", "BenchmarkVideoFile: model preset")
)

// BenchmarkVideoFile preprocesses -video end to end (probe, plan, decode
// of the sampled frames, resize, normalize, patchify) for -video-model,
// with the tensor in an anonymous mapping as `mmgate preprocess` places it.
func BenchmarkVideoFile(b *testing.B) {
	if *benchVideo == "" {
		b.Skip("no -video file given")
	}
	needFFmpeg(b)
	data, err := os.ReadFile(*benchVideo)
	if err != nil {
		b.Fatal(err)
	}
	benchVideoData(b, data, *benchModel)
}

// BenchmarkVideoClip runs a committed clip.
func BenchmarkVideoClip(b *testing.B) {
	needFFmpeg(b)
	data, err := os.ReadFile(filepath.Join(clipDir, "h264_moov_end.mp4"))
	if err != nil {
		b.Fatal(err)
	}
	benchVideoData(b, data, "qwen3-vl")
}

func benchVideoData(b *testing.B, data []byte, model string) {
	pp := newPre(b, model)
	ctx := context.Background()
	var mem tensormem.Allocator
	call := func() *Result {
		res, err := pp.Video(ctx, Request{Data: data, Alloc: mem.Alloc, Release: mem.Free})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	// One untimed call first: a process's first tensors land in memory it
	// has never touched, which costs far more than in a running gateway.
	mem.Free(call().Data)
	var res *Result
	var sum [32]byte
	var times []string
	for b.Loop() {
		t0 := time.Now()
		res = call()
		d := time.Since(t0)
		b.StopTimer() // hashing and unmapping are not part of the work
		times = append(times, strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64))
		sum = sha256.Sum256(res.Data)
		mem.Free(res.Data)
		b.StartTimer()
	}
	g := res.GridTHW()
	b.Logf("model=%s frames=%d grid=%v sha256=%s times_ms=%s probe=%v decode+process=%v resize(sum)=%v patchify(sum)=%v",
		model, len(res.Plan.Indices), g, hex.EncodeToString(sum[:]), strings.Join(times, ","), res.Timings.Probe, res.Timings.Decode,
		res.Timings.Resize, res.Timings.NormalizePatchify)
}
