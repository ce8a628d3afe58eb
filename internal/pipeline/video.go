package pipeline

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
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
// into a destination placed in batch.
func (p *Pipeline) prepareVideo(ctx context.Context, a *Assets, item prompt.MediaItem, dt tensor.DType, route shm.Route, batch *shm.Batch, vov vision.VideoOverrides, times *stageTimes) (prepared, error) {
	if a.VideoPrep == nil {
		return prepared{}, &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: "video is not supported for this model"}
	}
	m, err := p.fetch(ctx, item, times)
	if err != nil {
		return prepared{}, err
	}
	defer m.Release()
	data := m.Bytes

	var buf *shm.Buffer
	res, err := a.VideoPrep.Video(ctx, videoprep.Request{
		Data: data, Overrides: vov, DType: dt,
		Alloc: func(n int) ([]byte, error) {
			b, err := batch.Place(route, n, "video")
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
	p.observe(times, "decode", res.Timings.Decode)
	p.observe(times, "resize", res.Timings.Resize)
	p.observe(times, "normalize_patchify", res.Timings.NormalizePatchify)
	vp := res.Plan
	pr := prepared{modality: prompt.Video, plan: vp.Plan, video: &vp, hash: prompt.ContentHash(data)}
	if pr.input, err = placed(buf, a.Model.Layout(vision.Video).Primary, dt, vp.Shape()); err != nil {
		return prepared{}, err
	}
	pr.path = buf.Path()
	pr.side = a.Model.SideTensors(pr.item())
	return pr, nil
}

// expansions lays each item out in the prompt as the model's family says.
func expansions(items []prepared, a *Assets) []prompt.Expansion {
	exp := make([]prompt.Expansion, len(items))
	for i := range items {
		exp[i] = a.Model.Expansion(items[i].item())
	}
	return exp
}
