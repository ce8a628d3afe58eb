package pipeline

import (
	"github.com/mmgate/mmgate/openai"
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
