package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tokenizer"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: how does `render` turn a request into a prompt, ids
// and placeholder ranges for one model folder?

// renderModel is everything render needs from a model folder.
type renderModel struct {
	templates *chattemplate.Set
	tok       *tokenizer.Tokenizer
	model     family.Model
	specials  *prompt.Specials
	images    vision.Processor        // nil: the model takes no images
	video     *videoprep.Preprocessor // nil: the model takes no video
	decoder   *media.Decoder
	fetcher   *fetch.Fetcher
	order     openai.MediaOrder
}

// loadRenderModel loads the model folder dir with the built-in families.
func loadRenderModel(dir string, order openai.MediaOrder) (*renderModel, error) {
	set, err := chattemplate.Load(dir, chattemplate.Options{})
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, err
	}
	m, err := builtin.New().Load(dir)
	if err != nil {
		return nil, err
	}
	sp, err := m.Specials(tok)
	if err != nil {
		return nil, err
	}
	var images vision.Processor
	if slices.Contains(m.Modalities(), vision.Image) {
		if images, err = m.ImageProcessor(vision.ProcessorOptions{}); err != nil {
			return nil, err
		}
	}
	vp, err := newRenderVideo(m)
	if err != nil {
		return nil, err
	}
	dec, err := media.New(media.Options{})
	if err != nil {
		return nil, err
	}
	// Only data: URLs: render measures media from bytes it was given.
	fetcher, err := fetch.New(fetch.Policy{Schemes: []string{"data"}}, fetch.Options{})
	if err != nil {
		return nil, err
	}
	return &renderModel{templates: set, tok: tok, model: m, specials: sp, images: images, video: vp, decoder: dec, fetcher: fetcher, order: order}, nil
}

// imageExpansion plans the image in data from its header and returns its
// layout in the prompt.
func (m *renderModel) imageExpansion(data []byte, ov vision.Overrides) (prompt.Expansion, error) {
	if m.images == nil {
		return prompt.Expansion{}, fmt.Errorf("this model takes no images: %w", vision.ErrUnsupported)
	}
	h, err := m.decoder.Probe(data)
	if err != nil {
		return prompt.Expansion{}, err
	}
	p, err := m.images.PlanImage(h.Width, h.Height, ov)
	if err != nil {
		return prompt.Expansion{}, err
	}
	return m.model.Expansion(family.ImageItem(p)), nil
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

// errNoFetch refuses media that would have to be fetched.
var errNoFetch = errors.New("fetching media is not enabled in render; send images and videos as data: URLs")

func (m *renderModel) render(ctx context.Context, body []byte) (*renderOutput, error) {
	req, err := openai.ParseChat(body)
	if err != nil {
		return nil, err
	}
	tmpl, err := m.templates.Select(req.HasTools())
	if err != nil {
		return nil, err
	}
	plan, err := prompt.Build(req, prompt.Options{
		Specials:      m.specials,
		MediaOrder:    m.order,
		StringContent: !tmpl.IteratesContentParts(),
		EnableVideo:   m.video != nil,
	})
	if err != nil {
		return nil, err
	}
	ov, vov := pipeline.ImageOverrides(req), pipeline.VideoOverrides(req)
	exp := make([]prompt.Expansion, len(plan.Media))
	for i, it := range plan.Media {
		if it.Modality != prompt.Image && it.Modality != prompt.Video {
			return nil, fmt.Errorf("%s: %s input is not supported by render", it.Param, it.Modality)
		}
		if it.Scheme() != "data" {
			return nil, fmt.Errorf("%s: %s URL: %w", it.Param, it.Scheme(), errNoFetch)
		}
		md, err := m.fetcher.Fetch(ctx, it.URL)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.Param, err)
		}
		if it.Modality == prompt.Video {
			if exp[i], err = m.videoExpansion(ctx, md.Bytes, vov); err != nil {
				return nil, fmt.Errorf("%s: %w", it.Param, err)
			}
			continue
		}
		if exp[i], err = m.imageExpansion(md.Bytes, ov); err != nil {
			return nil, fmt.Errorf("%s: %w", it.Param, err)
		}
	}
	res, err := prompt.Render(tmpl, m.tok, m.specials, plan, exp)
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
