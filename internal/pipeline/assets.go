package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tokenizer"
	"github.com/mmgate/mmgate/vision"
)

// Assets are the gateway-side files of one model: tokenizer, chat templates,
// the model's family (media special tokens, processors, prompt and wire
// layout) and its image and video pipelines. They are immutable once loaded
// and shared by every request for that model.
type Assets struct {
	Dir       string
	Tokenizer *tokenizer.Tokenizer
	Templates *chattemplate.Set
	Model     family.Model
	Specials  *prompt.Specials
	// Prep preprocesses images; nil when the model takes none.
	Prep *imageprep.Preprocessor
	// VideoPrep preprocesses videos; nil when the model or this process
	// (no FFmpeg) cannot.
	VideoPrep *videoprep.Preprocessor
	// ProcessorKey identifies the processor configuration in cache keys:
	// the family's name and its key of the configuration.
	ProcessorKey string
	// EOS are the model's end-of-sequence ids (generation_config.json and
	// config.json), used as stop ids.
	EOS []uint32
	// ContextLength from config.json (0 if unknown; the worker's value wins).
	ContextLength int
	// Generation are generation_config.json's sampling defaults, which
	// vLLM's render applies.
	Generation GenerationDefaults
}

// AssetOptions say how LoadAssets builds a model's media pipelines.
type AssetOptions struct {
	// Families match the folder's config.json; nil means the built-in
	// families.
	Families *family.Registry
	// Decoder is the shared image decoder (required for a model that takes
	// images).
	Decoder imageprep.Decoder
	// Video decodes videos; nil: the model takes no video here.
	Video *video.Decoder
	// Concurrency bounds decode+preprocess across all requests (0:
	// GOMAXPROCS).
	Concurrency int
	// Workers bounds one image's processing goroutines (0: GOMAXPROCS).
	Workers int
	// Run, when not nil, runs each video frame's resize and patchify (the
	// heavy pool's Run); frames of one video then go through it in
	// parallel, up to GOMAXPROCS.
	Run func(context.Context, func()) error
}

// LoadAssets reads a model folder: tokenizer, templates, and the model its
// family loads from config.json.
func LoadAssets(dir string, o AssetOptions) (*Assets, error) {
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("pipeline: model %s: %w", dir, err)
	}
	set, err := chattemplate.Load(dir, chattemplate.Options{})
	if err != nil {
		return nil, fmt.Errorf("pipeline: model %s: %w", dir, err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("pipeline: model %s: %w", dir, err)
	}
	reg := o.Families
	if reg == nil {
		reg = builtin.New()
	}
	m, err := reg.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("pipeline: model %s: %w", dir, err)
	}
	sp, err := m.Specials(tok)
	if err != nil {
		return nil, fmt.Errorf("pipeline: model %s: %w", dir, err)
	}
	a := &Assets{Dir: dir, Tokenizer: tok, Templates: set, Model: m, Specials: sp, ProcessorKey: m.Family().Name() + ":" + m.ProcessorKey()}
	a.EOS, a.ContextLength = readEOS(dir, cfg)
	if tc, err := tokenizer.LoadConfig(dir); err == nil {
		// vLLM stops at the tokenizer's eos too (LLaVA-1.5's config.json
		// names none).
		a.EOS = mergeEOS(tc.StopTokenIDs(tok), a.EOS)
	}
	if err := a.loadMedia(o); err != nil {
		return nil, fmt.Errorf("pipeline: model %s: %w", dir, err)
	}
	// An unreadable file gives no defaults, as vLLM's
	// try_get_generation_config gives none.
	a.Generation, _ = readGenerationDefaults(dir)
	return a, nil
}

// loadMedia builds the image pipeline and, when the model takes videos and
// this process decodes them, the video pipeline.
func (a *Assets) loadMedia(o AssetOptions) error {
	mods := a.Model.Modalities()
	if slices.Contains(mods, vision.Image) {
		proc, err := a.Model.ImageProcessor(vision.ProcessorOptions{Workers: o.Workers})
		if err != nil {
			return err
		}
		if a.Prep, err = imageprep.New(imageprep.Options{Decoder: o.Decoder, Processor: proc, Concurrency: o.Concurrency}); err != nil {
			return err
		}
	}
	if slices.Contains(mods, vision.Video) && o.Video != nil {
		// Without a video pipeline the model serves images and text; video
		// parts are then refused as unsupported.
		if proc, err := a.Model.VideoProcessor(vision.ProcessorOptions{Workers: o.Workers}); err == nil {
			vo := videoprep.Options{Decoder: o.Video, Processor: proc, Concurrency: 1, Workers: o.Workers, Run: o.Run}
			if o.Run != nil {
				vo.Workers = 0
			}
			if vp, err := videoprep.New(vo); err == nil {
				a.VideoPrep = vp
			}
		}
	}
	return nil
}

// mergeEOS is a followed by the ids of b it lacks.
func mergeEOS(a, b []uint32) []uint32 {
	out := slices.Clone(a)
	for _, id := range b {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// readEOS collects eos ids from generation_config.json then config.json (top
// level and text_config), and the context length.
func readEOS(dir string, cfg []byte) ([]uint32, int) {
	type ids struct {
		EOS json.RawMessage `json:"eos_token_id"`
		Max int             `json:"max_position_embeddings"`
	}
	var top struct {
		ids
		Text *ids `json:"text_config"`
	}
	json.Unmarshal(cfg, &top)
	var gen ids
	if b, err := os.ReadFile(filepath.Join(dir, "generation_config.json")); err == nil {
		json.Unmarshal(b, &gen)
	}
	var out []uint32
	add := func(raw json.RawMessage) {
		var one uint32
		var many []uint32
		if json.Unmarshal(raw, &one) == nil {
			many = []uint32{one}
		} else if json.Unmarshal(raw, &many) != nil {
			return
		}
		for _, id := range many {
			dup := false
			for _, x := range out {
				dup = dup || x == id
			}
			if !dup {
				out = append(out, id)
			}
		}
	}
	add(gen.EOS)
	add(top.EOS)
	ctxLen := top.Max
	if top.Text != nil {
		add(top.Text.EOS)
		if top.Text.Max > 0 {
			ctxLen = top.Text.Max
		}
	}
	return out, ctxLen
}
