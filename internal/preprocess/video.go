package preprocess

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/vision"
)

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

// newVideos builds the video pipeline on the model's own video processor:
// the image path's memory-releasing resizer would force a collection per
// large frame. One video is processed at a time, o.Workers frames of it at
// the same time. The frames are resized and patchified on threads of the
// gateway's default media priority (SCHED_IDLE, else nice 10), so that
// FFmpeg's decode, the critical path, has the CPU whenever it wants it; the
// returned function stops them.
func newVideos(o Options) (*videoprep.Preprocessor, func(), error) {
	proc, err := o.Model.VideoProcessor(vision.ProcessorOptions{})
	if err != nil {
		return nil, nil, err
	}
	dec, err := video.New(video.Options{AllowGIF: o.Video.AsVideo})
	if err != nil {
		return nil, nil, err
	}
	pool, err := cpupool.New(cpupool.Options{Slots: o.Workers, Idle: true})
	if err != nil {
		return nil, nil, err
	}
	vp, err := videoprep.New(videoprep.Options{Decoder: dec, Processor: proc, Concurrency: 1, Workers: o.Workers, Run: pool.Run})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return vp, pool.Close, nil
}

// video runs one video and returns its line (a VideoLine, or an ErrorLine
// when the input is refused). The tensor lives in memory mapped for it
// alone and is unmapped before returning, after the optional hash and .npy
// file. MinPixels and MaxPixels are the video processor's min/max pixels.
func (r *Runner) video(ctx context.Context, name string, data []byte, npyPath string) any {
	if r.videos == nil {
		return refuse(name, errors.New("video input is not available"))
	}
	if isWebP(data) {
		return refuse(name, fmt.Errorf("animated WebP cannot be decoded as a video (FFmpeg 5.1 has no animated WebP decoder): %w", video.ErrUnsupported))
	}
	v := r.o.Video
	res, err := r.videos.Video(ctx, videoprep.Request{
		Data: data,
		Overrides: vision.VideoOverrides{
			FPS: v.FPS, NumFrames: v.NumFrames, TotalPixels: v.TotalPixels,
			MinPixels: r.o.MinPixels, MaxPixels: r.o.MaxPixels,
		},
		DType:   r.o.DType,
		Alloc:   r.mem.Alloc,
		Release: r.mem.Free,
	})
	if res != nil && res.Data != nil {
		defer r.mem.Free(res.Data)
	}
	if err != nil {
		return refuse(name, explainVideoError(err))
	}
	line := videoLine(name, r.o.Model, res)
	sum, err := r.emit(npyPath, res.DType, res.Shape(), res.Data)
	if err != nil {
		return refuse(name, err)
	}
	line.SHA256 = sum
	return line
}

// explainVideoError adds how to install FFmpeg when it is missing.
func explainVideoError(err error) error {
	var ee *exec.Error
	if errors.Is(err, video.ErrUnavailable) && errors.As(err, &ee) {
		return fmt.Errorf("%w (install the Debian package ffmpeg)", err)
	}
	return err
}

// videoLine is the line of an accepted video, without its hash.
func videoLine(name string, model family.Model, res *videoprep.Result) VideoLine {
	p := res.Plan
	line := VideoLine{
		File:   name,
		Extras: model.Extras(family.VideoItem(&p)),
		Tokens: res.Tokens(),
		Shape:  res.Shape(),
		DType:  res.DType.String(),
		Exact:  true, // FFmpeg's rgb24 frames are the reference's by definition
		Frames: p.Indices,
		FPS:    res.Info.FPS,
		TimingsMS: TimingsMS{
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
	return line
}
