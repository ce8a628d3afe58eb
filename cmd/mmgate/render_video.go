package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: how does `render` size a video? It probes the data:
// URL's bytes with FFmpeg and plans the video as the gateway does (sampled
// frames, resized size, grid, timestamps) without processing any pixel,
// then lays the placeholders out as the model's family says, the gateway's
// rule.

// newRenderVideo builds the video planner of a model that takes videos; nil
// when it takes none.
func newRenderVideo(m family.Model) (*videoprep.Preprocessor, error) {
	if !slices.Contains(m.Modalities(), vision.Video) {
		return nil, nil
	}
	proc, err := m.VideoProcessor(vision.ProcessorOptions{})
	if err != nil {
		return nil, err
	}
	dec, err := video.New(video.Options{})
	if err != nil {
		return nil, err
	}
	return videoprep.New(videoprep.Options{Decoder: dec, Processor: proc, Concurrency: 1, Workers: 1})
}

// videoExpansion plans the video in data and returns its placeholder layout.
func (m *renderModel) videoExpansion(ctx context.Context, data []byte, o vision.VideoOverrides) (prompt.Expansion, error) {
	if m.video == nil {
		return prompt.Expansion{}, fmt.Errorf("this model takes no video: %w", vision.ErrUnsupported)
	}
	if err := o.Validate(); err != nil {
		return prompt.Expansion{}, err
	}
	_, p, err := m.video.Plan(ctx, data, o)
	if err != nil {
		return prompt.Expansion{}, err
	}
	return m.model.Expansion(family.VideoItem(&p)), nil
}
