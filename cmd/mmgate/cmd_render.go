package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/mmgate/mmgate/openai"
)

// maxRenderBody bounds the request read from stdin (the server's default
// body limit).
const maxRenderBody = 64 << 20

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
	m, err := loadRenderModel(*model, mo)
	if err != nil {
		writeJSONLine(s, map[string]string{"error": err.Error()})
		return 1
	}
	body, err := io.ReadAll(io.LimitReader(s.in, maxRenderBody+1))
	if err != nil {
		writeJSONLine(s, map[string]string{"error": "reading stdin: " + err.Error()})
		return 1
	}
	if len(body) > maxRenderBody {
		writeJSONLine(s, map[string]string{"error": fmt.Sprintf("request over %d bytes", maxRenderBody)})
		return 1
	}
	out, err := m.render(ctx, body)
	if err != nil {
		writeJSONLine(s, map[string]string{"error": err.Error()})
		return 1
	}
	return writeJSONLine(s, out)
}
