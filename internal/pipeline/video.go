package pipeline

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// imageOverrides are the request's image settings (mm_processor_kwargs
// min_pixels, max_pixels).
func imageOverrides(req *openai.ChatRequest) vision.Overrides {
	var o vision.Overrides
	if v := req.MMProcessorKwargs.MinPixels; v != nil {
		o.MinPixels = *v
	}
	if v := req.MMProcessorKwargs.MaxPixels; v != nil {
		o.MaxPixels = *v
	}
	return o
}

// videoOverrides are the request's video settings (mm_processor_kwargs).
func videoOverrides(req *openai.ChatRequest) vision.VideoOverrides {
	k := req.MMProcessorKwargs
	var o vision.VideoOverrides
	if k.FPS != nil {
		o.FPS = *k.FPS
	}
	if k.NumFrames != nil {
		o.NumFrames = *k.NumFrames
	}
	if k.MinPixels != nil {
		o.MinPixels = *k.MinPixels
	}
	if k.MaxPixels != nil {
		o.MaxPixels = *k.MaxPixels
	}
	if k.TotalPixels != nil {
		o.TotalPixels = float64(*k.TotalPixels)
	}
	return o
}

// prepareVideo fetches a video, samples and preprocesses its frames straight
// into a destination placed in the job's batch.
func (p *Pipeline) prepareVideo(ctx context.Context, j *mediaJob, item prompt.MediaItem) (pr prepared, err error) {
	if j.a.VideoPrep == nil {
		return prepared{}, errNoVideo(item)
	}
	m, err := p.fetch(ctx, item, j.times)
	if err != nil {
		return prepared{}, err
	}
	defer func() {
		if err != nil || !j.raw {
			m.Release()
		}
	}()
	var buf *shm.Buffer
	res, err := j.a.VideoPrep.Video(ctx, videoprep.Request{
		Data: m.Bytes, Overrides: j.vov, DType: j.dt,
		Alloc: func(n int) ([]byte, error) {
			b, err := j.batch.Place(j.route, n, "video")
			if err != nil {
				return nil, err
			}
			buf = b
			return b.Bytes(), nil
		},
	})
	if err != nil {
		return prepared{}, fmt.Errorf("%s: %w", item.Param, err)
	}
	p.observeVideo(res.Timings, j.times)
	pr = videoPrepared(j, res.Plan, m.Bytes)
	if pr.input, err = placed(buf, j.a.Model.Layout(vision.Video).Primary, j.dt, pr.video.Shape()); err != nil {
		return prepared{}, err
	}
	pr.path = buf.Path()
	if j.raw {
		pr.raw = m
	}
	return pr, nil
}

// videoPrepared is a processed video's item: plan, identity, side tensors.
func videoPrepared(j *mediaJob, vp vision.VideoPlan, data []byte) prepared {
	pr := prepared{modality: prompt.Video, plan: vp.Plan, video: &vp}
	identify(&pr, data, videoSettings(j.vov))
	pr.side = j.a.Model.SideTensors(pr.item())
	return pr
}

// observeVideo records a video's stage times.
func (p *Pipeline) observeVideo(t videoprep.Timings, times *stageTimes) {
	p.observe(times, "decode", t.Decode)
	p.observe(times, "resize", t.Resize)
	p.observe(times, "normalize_patchify", t.NormalizePatchify)
}

// expansions lays each item out in the prompt as the model's family says.
func expansions(items []prepared, a *Assets) []prompt.Expansion {
	exp := make([]prompt.Expansion, len(items))
	for i := range items {
		exp[i] = a.Model.Expansion(items[i].item())
	}
	return exp
}
