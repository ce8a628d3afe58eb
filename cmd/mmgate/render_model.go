package main

import (
	"context"

	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/openai"
)

// This file answers: how is `render` wired? The model folder's assets, a
// fetcher of data: URLs only, and the pipeline's Renderer: the gateway's
// front half with a media stage that reads headers instead of pixels (a
// video is probed with FFmpeg).

// renderModel renders requests for one model folder.
type renderModel struct{ r *pipeline.Renderer }

// loadRenderModel loads the model folder dir with the built-in families.
func loadRenderModel(dir string, order openai.MediaOrder) (*renderModel, error) {
	dec, err := media.New(media.Options{})
	if err != nil {
		return nil, err
	}
	vdec, err := video.New(video.Options{})
	if err != nil {
		return nil, err
	}
	a, err := pipeline.LoadAssets(dir, pipeline.AssetOptions{Families: builtin.New(), Decoder: imageprep.MediaDecoder(dec), Video: vdec})
	if err != nil {
		return nil, err
	}
	// Only data: URLs: render measures media from bytes it was given.
	fetcher, err := fetch.New(fetch.Policy{Schemes: []string{"data"}}, fetch.Options{})
	if err != nil {
		return nil, err
	}
	r, err := pipeline.NewRenderer(a, pipeline.RenderOptions{Fetcher: fetcher, InlineOnly: true, MediaOrder: order})
	if err != nil {
		return nil, err
	}
	return &renderModel{r: r}, nil
}

type renderPlaceholder struct {
	Modality string `json:"modality"`
	Offset   int    `json:"offset"`
	Length   int    `json:"length"`
}

type renderOutput struct {
	Prompt       string              `json:"prompt"`
	InputIDs     []uint32            `json:"input_ids"`
	Placeholders []renderPlaceholder `json:"placeholders"`
}

func (m *renderModel) render(ctx context.Context, body []byte) (*renderOutput, error) {
	req, err := openai.ParseChat(body)
	if err != nil {
		return nil, err
	}
	res, err := m.r.Render(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &renderOutput{Prompt: res.Text, InputIDs: res.IDs, Placeholders: []renderPlaceholder{}}
	if out.InputIDs == nil {
		out.InputIDs = []uint32{}
	}
	for _, p := range res.Placeholders {
		out.Placeholders = append(out.Placeholders, renderPlaceholder{Modality: p.Modality.String(), Offset: p.Offset, Length: p.Length})
	}
	return out, nil
}
