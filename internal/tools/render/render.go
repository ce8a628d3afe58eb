// Package render is what `mmgate render` runs: it loads a model folder with
// the built-in families, a fetcher of data: URLs only and the pipeline's
// Renderer (the gateway's front half with a media stage that reads headers
// instead of pixels; a video is probed with FFmpeg), and renders OpenAI
// chat request bodies into the prompt, its token ids and its placeholder
// runs.
package render

import (
	"context"
	"fmt"
	"io"

	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/openai"
)

// MaxBody bounds a request body (the server's default body limit).
const MaxBody = 64 << 20

// Model renders requests for one model folder.
type Model struct{ r *pipeline.Renderer }

// Load loads the model folder dir with the built-in families; order is the
// media order of a request that sets none.
func Load(dir string, order openai.MediaOrder) (*Model, error) {
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
	return &Model{r: r}, nil
}

// ReadBody reads a request body of at most MaxBody bytes from r.
func ReadBody(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if len(body) > MaxBody {
		return nil, fmt.Errorf("request over %d bytes", MaxBody)
	}
	return body, nil
}

// Placeholder is one run of media placeholder tokens in the input ids.
type Placeholder struct {
	Modality string `json:"modality"`
	Offset   int    `json:"offset"`
	Length   int    `json:"length"`
}

// Output is a rendered request; its lists are never null in JSON.
type Output struct {
	Prompt       string        `json:"prompt"`
	InputIDs     []uint32      `json:"input_ids"`
	Placeholders []Placeholder `json:"placeholders"`
}

// Render renders the chat completions request body.
func (m *Model) Render(ctx context.Context, body []byte) (*Output, error) {
	req, err := openai.ParseChat(body)
	if err != nil {
		return nil, err
	}
	res, err := m.r.Render(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &Output{Prompt: res.Text, InputIDs: res.IDs, Placeholders: []Placeholder{}}
	if out.InputIDs == nil {
		out.InputIDs = []uint32{}
	}
	for _, p := range res.Placeholders {
		out.Placeholders = append(out.Placeholders, Placeholder{Modality: p.Modality.String(), Offset: p.Offset, Length: p.Length})
	}
	return out, nil
}
