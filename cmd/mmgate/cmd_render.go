package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mmgate/mmgate/internal/tools/render"
	"github.com/mmgate/mmgate/openai"
)

// runRender reads an OpenAI chat completions request on stdin and prints
// {"prompt", "input_ids", "placeholders"} for the model folder given with
// --model. Images and videos come as data: URLs; a video is probed with
// FFmpeg and planned (no pixel is processed). A refused request prints {"error": …} and exits 1.
func runRender(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "render", "render --model MODEL_DIR [flags] < request.json")
	model := fs.String("model", "", "model folder (config.json, tokenizer.json, chat template, preprocessor_config.json)")
	order := fs.String("media-order", string(openai.MediaFirst), "media order inside a message when the request sets none: media_first|authored")
	fs.String("config", "", "config file (YAML or JSON)")
	rest, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(s.err, "mmgate render: unexpected argument %q\n", rest[0])
		return 2
	}
	if *model == "" {
		fmt.Fprintln(s.err, "mmgate render: --model is required")
		return 2
	}
	mo := openai.MediaOrder(*order)
	if mo != openai.MediaFirst && mo != openai.Authored {
		fmt.Fprintf(s.err, "mmgate render: --media-order %q: want media_first or authored\n", *order)
		return 2
	}
	out, err := renderStdin(ctx, s, *model, mo)
	if err != nil {
		writeJSONLine(s, map[string]string{"error": err.Error()})
		return 1
	}
	return writeJSONLine(s, out)
}

// renderStdin loads the model folder and renders the request on stdin.
func renderStdin(ctx context.Context, s *stdio, model string, order openai.MediaOrder) (*render.Output, error) {
	m, err := render.Load(model, order)
	if err != nil {
		return nil, err
	}
	body, err := render.ReadBody(s.in)
	if err != nil {
		return nil, err
	}
	return m.Render(ctx, body)
}
