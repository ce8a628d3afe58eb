package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os/exec"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: how does `mmgate preprocess` handle a video? A file
// whose bytes start like a video container (MP4/MOV, Matroska/WebM, AVI) is
// decoded with FFmpeg, sampled and preprocessed as the model's video
// processor does (package internal/videoprep); an animated GIF stays an
// image unless --as-video is given. The line carries the image fields plus
// the sampled source frame indices, the average frame rate and the model's
// timing metadata.

// videoFlags are the preprocess flags that concern videos only.
type videoFlags struct {
	fps         float64
	numFrames   int
	totalPixels float64
	asVideo     bool
}

// addVideoFlags registers --fps, --num-frames, --total-pixels and
// --as-video on fs.
func addVideoFlags(fs *flag.FlagSet) *videoFlags {
	vf := new(videoFlags)
	fs.Float64Var(&vf.fps, "fps", 0, "video: sampling rate in frames per second (0: the model's)")
	fs.IntVar(&vf.numFrames, "num-frames", 0, "video: sample this many frames (0: by fps; exclusive with --fps)")
	fs.Float64Var(&vf.totalPixels, "total-pixels", 0, "video: Qwen2/2.5-VL pixel budget over all frames (0: the default)")
	fs.BoolVar(&vf.asVideo, "as-video", false, "decode animated GIFs as videos (with FFmpeg) instead of their first frame")
	return vf
}

// validate reports a usage error in the video flags ("" when they are fine).
func (vf *videoFlags) validate() string {
	switch {
	case vf.fps < 0 || vf.numFrames < 0 || vf.totalPixels < 0:
		return "--fps, --num-frames and --total-pixels must not be negative"
	case vf.fps != 0 && vf.numFrames != 0:
		return "--fps and --num-frames exclude each other"
	case vf.numFrames > vision.MaxVideoFrames:
		return fmt.Sprintf("--num-frames must be at most %d", vision.MaxVideoFrames)
	}
	return ""
}

// isVideo reports whether data is preprocessed as a video: a video container,
// or with asVideo a GIF or an animated WebP (the latter is then refused with
// a clear error: FFmpeg 5.1 cannot decode animated WebP).
func isVideo(data []byte, asVideo bool) bool {
	if video.IsVideo(data) {
		return true
	}
	if !asVideo {
		return false
	}
	return video.Sniff(data) == video.ContainerGIF || isWebP(data)
}

func isWebP(data []byte) bool {
	return len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP"))
}

// modelVideoPreprocessor builds the video pipeline of model with its own
// video processor: the image path's memory-releasing resizer would force a
// collection per large frame.
func modelVideoPreprocessor(model family.Model, workers int, vf *videoFlags) (*videoprep.Preprocessor, func(), error) {
	proc, err := model.VideoProcessor(vision.ProcessorOptions{})
	if err != nil {
		return nil, nil, err
	}
	return newVideoPreprocessor(proc, workers, vf)
}

// newVideoPreprocessor builds the video pipeline on proc. workers bounds
// the frames processed at the same time; one video is processed at a time.
// The frames are resized and patchified on threads of the gateway's default
// media priority (SCHED_IDLE, else nice 10), so that FFmpeg's decode, the
// critical path, has the CPU whenever it wants it; the returned function
// stops them.
func newVideoPreprocessor(proc vision.VideoProcessor, workers int, vf *videoFlags) (*videoprep.Preprocessor, func(), error) {
	dec, err := video.New(video.Options{AllowGIF: vf.asVideo})
	if err != nil {
		return nil, nil, err
	}
	pool, err := cpupool.New(cpupool.Options{Slots: workers, Idle: true})
	if err != nil {
		return nil, nil, err
	}
	vp, err := videoprep.New(videoprep.Options{Decoder: dec, Processor: proc, Concurrency: 1, Workers: workers, Run: pool.Run})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return vp, pool.Close, nil
}

// preprocessVideoLine is the JSON line of one accepted video; the family's
// extras follow "file" (preprocess_line.go).
type preprocessVideoLine struct {
	File            string             `json:"file"`
	Extras          []family.Field     `json:"-"`
	Tokens          int                `json:"tokens"`
	Shape           []int              `json:"shape"`
	DType           string             `json:"dtype"`
	Exact           bool               `json:"exact"`
	Frames          []int              `json:"frames"`
	FPS             float64            `json:"fps"`
	Timestamps      []float64          `json:"timestamps,omitempty"`
	SecondPerGridTS *float64           `json:"second_per_grid_ts,omitempty"`
	TimingsMS       preprocessTimingMS `json:"timings_ms"`
	SHA256          string             `json:"sha256,omitempty"`
}

// preprocessVideo runs one video through m.videos and returns its JSON line
// (a preprocessVideoLine, or a preprocessError when the input is refused).
// The tensor lives in memory mapped for it alone and is unmapped before
// returning, after the optional hash and .npy file. f.minPixels and
// f.maxPixels are the video processor's min/max pixels.
func preprocessVideo(ctx context.Context, m preprocessMedia, f preprocessFlags, name string, data []byte, npyPath string) any {
	refuse := func(err error) any { return preprocessError{File: name, Error: err.Error()} }
	vp, vf := m.videos, m.video
	if vp == nil {
		return refuse(errors.New("video input is not available"))
	}
	if isWebP(data) {
		return refuse(fmt.Errorf("animated WebP cannot be decoded as a video (FFmpeg 5.1 has no animated WebP decoder): %w", video.ErrUnsupported))
	}
	res, err := vp.Video(ctx, videoprep.Request{
		Data: data,
		Overrides: vision.VideoOverrides{
			FPS: vf.fps, NumFrames: vf.numFrames, TotalPixels: vf.totalPixels,
			MinPixels: f.minPixels, MaxPixels: f.maxPixels,
		},
		DType: f.dtype,
		Alloc: m.mem.Alloc,
	})
	if res != nil && res.Data != nil {
		defer m.mem.Free(res.Data)
	}
	if err != nil {
		if errors.Is(err, video.ErrUnavailable) {
			var ee *exec.Error
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w (install the Debian package ffmpeg)", err)
			}
		}
		return refuse(err)
	}
	p := res.Plan
	line := preprocessVideoLine{
		File:   name,
		Extras: m.model.Extras(family.VideoItem(&p)),
		Tokens: res.Tokens(),
		Shape:  res.Shape(),
		DType:  res.DType.String(),
		Exact:  true, // FFmpeg's rgb24 frames are the reference's by definition
		Frames: p.Indices,
		FPS:    res.Info.FPS,
		TimingsMS: preprocessTimingMS{
			Decode:            ms(res.Timings.Probe + res.Timings.Decode),
			Resize:            ms(res.Timings.Resize),
			NormalizePatchify: ms(res.Timings.NormalizePatchify),
		},
	}
	if p.Timestamps != nil {
		line.Timestamps = p.Timestamps
	}
	if p.SecondPerGridTS != 0 {
		s := p.SecondPerGridTS
		line.SecondPerGridTS = &s
	}
	sum, err := emitTensor(f, npyPath, res.DType, res.Shape(), res.Data)
	if err != nil {
		return refuse(err)
	}
	line.SHA256 = sum
	return line
}
