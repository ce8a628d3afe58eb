package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tokenizer"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// Assets are the gateway-side files of one model: tokenizer, chat templates,
// media special tokens and the image preprocessor. They are immutable once
// loaded and shared by every request for that model.
type Assets struct {
	Dir       string
	Tokenizer *tokenizer.Tokenizer
	Templates *chattemplate.Set
	Specials  *prompt.Specials
	Prep      *imageprep.Preprocessor
	Processor *qwenvl.Processor
	// VideoPrep preprocesses videos; nil when the model or this process
	// (no FFmpeg) cannot.
	VideoPrep *videoprep.Preprocessor
	// ProcessorKey identifies the processor configuration in cache keys.
	ProcessorKey string
	// EOS are the model's end-of-sequence ids (generation_config.json and
	// config.json), used as stop ids.
	EOS []uint32
	// ContextLength from config.json (0 if unknown; the worker's value wins).
	ContextLength int
	// ModelType is config.json's model_type (it picks the output format
	// for tool calls and reasoning).
	ModelType string
}

// LoadAssets reads a model folder. dec is the shared image decoder;
// concurrency bounds decode+preprocess across all requests. run, when not
// nil, runs each video frame's resize and patchify (the heavy pool's Run);
// frames of one video then go through it in parallel, up to GOMAXPROCS.
func LoadAssets(dir string, dec imageprep.Decoder, vdec *video.Decoder, concurrency, workers int, run func(context.Context, func()) error) (*Assets, error) {
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
	sp, err := prompt.ReadSpecials(cfg, tok)
	if err != nil {
		return nil, fmt.Errorf("pipeline: model %s: %w", dir, err)
	}
	a := &Assets{Dir: dir, Tokenizer: tok, Templates: set, Specials: sp}
	a.EOS, a.ContextLength = readEOS(dir, cfg)
	var mt struct {
		ModelType string `json:"model_type"`
	}
	json.Unmarshal(cfg, &mt)
	a.ModelType = mt.ModelType
	if len(sp.Pad) > 0 {
		proc, err := qwenvl.Load(dir, qwenvl.Options{Workers: workers})
		if err != nil {
			return nil, fmt.Errorf("pipeline: model %s: %w", dir, err)
		}
		prep, err := imageprep.New(imageprep.Options{Decoder: dec, Processor: proc, Concurrency: concurrency})
		if err != nil {
			return nil, err
		}
		a.Processor, a.Prep = proc, prep
		if _, hasVideo := sp.Pad[prompt.Video]; hasVideo && vdec != nil {
			vo := videoprep.Options{Decoder: vdec, Processor: proc, Concurrency: 1, Workers: workers, Run: run}
			if run != nil {
				vo.Workers = 0
			}
			if vp, err := videoprep.New(vo); err == nil {
				a.VideoPrep = vp
			}
		}
		key, _ := json.Marshal(proc.Config())
		a.ProcessorKey = string(key)
	}
	return a, nil
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
