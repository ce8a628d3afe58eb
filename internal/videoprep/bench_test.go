package videoprep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"testing"
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
	var res *Result
	var err error
	var sum [32]byte
	for b.Loop() {
		if res, err = pp.Video(ctx, Request{Data: data, Alloc: benchAlloc, Release: benchFree}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer() // hashing and unmapping are not part of the work
		sum = sha256.Sum256(res.Data)
		benchFree(res.Data)
		b.StartTimer()
	}
	g := res.GridTHW()
	b.Logf("model=%s frames=%d grid=%v sha256=%s probe=%v decode+process=%v resize(sum)=%v patchify(sum)=%v",
		model, len(res.Plan.Indices), g, hex.EncodeToString(sum[:]), res.Timings.Probe, res.Timings.Decode,
		res.Timings.Resize, res.Timings.NormalizePatchify)
}
