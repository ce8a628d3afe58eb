package pipeline

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/mmgate/mmgate/openai"
)

// This file answers: what sampling_params does vLLM's render answer for a
// request? vLLM's ChatCompletionRequest / CompletionRequest
// .to_sampling_params, SamplingParams.from_optional and __post_init__
// (vllm/sampling_params.py), written with msgspec's omit_defaults: a field
// at its default is left out.

// vLLM's SamplingParams defaults of the fields render resolves.
const (
	vllmDefaultMaxTokens = 16
	// vllmMinTemperature: a temperature in (0, this) is raised to it.
	vllmMinTemperature = 1e-2
	// vllmGreedy: a temperature below it is greedy sampling.
	vllmGreedy = 1e-5
)

// vllmSampling resolves p as vLLM's render does for a prompt whose
// max_tokens the front half resolved to maxTokens (vLLM's get_max_tokens
// without the generation config's cap, which is applied here), with the
// model's generation_config.json defaults g.
func vllmSampling(p *openai.Params, maxTokens *uint32, g GenerationDefaults) (openai.SamplingParams, error) {
	sp := openai.SamplingParams{OutputKind: openai.OutputFinalOnly, SkipClone: true, Stop: []string{}, StopTokenIDs: []uint32{}, BadWords: []string{}}
	if p.Stream {
		sp.OutputKind = openai.OutputDelta
	}
	if err := vllmPenalties(&sp, p, g); err != nil {
		return sp, err
	}
	if p.N != nil && *p.N != 1 {
		sp.N = p.N
	}
	if p.Seed != nil && *p.Seed != -1 {
		sp.Seed = p.Seed
	}
	if err := vllmStops(&sp, p); err != nil {
		return sp, err
	}
	if err := vllmBudget(&sp, p, maxTokens, g); err != nil {
		return sp, err
	}
	if p.Logprobs {
		n := 0
		if p.TopLogprobs != nil {
			n = *p.TopLogprobs
		}
		sp.Logprobs = &n
	}
	f := false
	if !p.SkipSpecial {
		sp.SkipSpecialTokens = &f
	}
	if !p.Render.SpacesBetweenSpecial {
		sp.SpacesBetweenSpecialTokens = &f
	}
	sp.IgnoreEOS = p.IgnoreEOS
	sp.StructuredOutputs = vllmStructured(p.ResponseFormat)
	if len(p.LogitBias) > 0 {
		sp.LogitBias = make(map[uint32]float64, len(p.LogitBias))
		for id, v := range p.LogitBias {
			sp.LogitBias[id] = min(100, max(-100, v))
		}
	}
	sp.AllowedTokenIDs = p.Render.AllowedTokenIDs
	sp.ExtraArgs = vllmExtraArgs(&p.Render)
	for _, w := range p.Render.BadWords {
		if !slices.Contains(sp.BadWords, w) {
			sp.BadWords = append(sp.BadWords, w)
		}
	}
	return sp, nil
}

// vllmPenalties resolves the seven fields a request, then the model's
// generation config, then vLLM's defaults give, and checks their ranges.
func vllmPenalties(sp *openai.SamplingParams, p *openai.Params, g GenerationDefaults) error {
	pick := func(req, gen *float64, def float64) float64 {
		switch {
		case req != nil:
			return *req
		case gen != nil:
			return *gen
		}
		return def
	}
	temp := pick(p.Temperature, g.Temperature, 1)
	topP := pick(p.TopP, g.TopP, 1)
	minP := pick(p.MinP, g.MinP, 0)
	rep := pick(p.Repetition, g.RepetitionPenalty, 1)
	pres := pick(p.Presence, nil, 0)
	freq := pick(p.Frequency, nil, 0)
	topK := 0
	if p.TopK != nil {
		topK = *p.TopK
	} else if g.TopK != nil {
		topK = *g.TopK
	}
	if 0 < temp && temp < vllmMinTemperature {
		temp = vllmMinTemperature
	}
	if err := checkRanges(temp, topP, minP, rep, pres, freq, topK); err != nil {
		return err
	}
	if temp < vllmGreedy {
		topP, topK, minP = 1, 0, 0
		if p.N != nil && *p.N > 1 {
			return openai.BadRequest("n", fmt.Sprintf("must be 1 when using greedy sampling, got %d", *p.N))
		}
	}
	unlessDefault := func(dst **float64, v, def float64) {
		if v != def {
			*dst = &v
		}
	}
	unlessDefault(&sp.PresencePenalty, pres, 0)
	unlessDefault(&sp.FrequencyPenalty, freq, 0)
	unlessDefault(&sp.RepetitionPenalty, rep, 1)
	unlessDefault(&sp.Temperature, temp, 1)
	unlessDefault(&sp.TopP, topP, 1)
	unlessDefault(&sp.MinP, minP, 0)
	if topK != 0 {
		sp.TopK = &topK
	}
	return nil
}

// checkRanges is SamplingParams._verify_args for the sampling fields.
func checkRanges(temp, topP, minP, rep, pres, freq float64, topK int) error {
	switch {
	case !(pres >= -2 && pres <= 2):
		return openai.BadRequest("presence_penalty", fmt.Sprintf("must be in [-2, 2], got %v", pres))
	case !(freq >= -2 && freq <= 2):
		return openai.BadRequest("frequency_penalty", fmt.Sprintf("must be in [-2, 2], got %v", freq))
	case math.IsInf(rep, 0) || !(rep > 0):
		return openai.BadRequest("repetition_penalty", fmt.Sprintf("must be a finite number greater than zero, got %v", rep))
	case math.IsInf(temp, 0) || !(temp >= 0 && temp <= 2):
		return openai.BadRequest("temperature", fmt.Sprintf("must be in [0, 2], got %v", temp))
	case !(topP > 0 && topP <= 1):
		return openai.BadRequest("top_p", fmt.Sprintf("must be in (0, 1], got %v", topP))
	case topK < -1:
		return openai.BadRequest("top_k", fmt.Sprintf("must be 0 (disable), or at least 1, got %d", topK))
	case !(minP >= 0 && minP <= 1):
		return openai.BadRequest("min_p", fmt.Sprintf("must be in [0, 1], got %v", minP))
	}
	return nil
}

// vllmStops fills stop, stop_token_ids (first occurrences in order) and
// the text held back for stop strings.
func vllmStops(sp *openai.SamplingParams, p *openai.Params) error {
	for i, s := range p.Stop {
		if s == "" {
			return openai.BadRequest(fmt.Sprintf("stop[%d]", i), "stop cannot contain an empty string")
		}
		sp.Stop = append(sp.Stop, s)
	}
	for _, id := range p.StopTokenIDs {
		if !slices.Contains(sp.StopTokenIDs, id) {
			sp.StopTokenIDs = append(sp.StopTokenIDs, id)
		}
	}
	sp.IncludeStopStrInOutput = p.Render.IncludeStopStr
	if len(sp.Stop) > 0 && !sp.IncludeStopStrInOutput {
		longest := 0
		for _, s := range sp.Stop {
			longest = max(longest, utf8.RuneCountInString(s))
		}
		sp.OutputTextBufferLength = longest - 1
	}
	return nil
}

// vllmBudget sets max_tokens (capped by the generation config's
// max_new_tokens when the request gives none, as get_max_tokens caps it)
// and min_tokens.
func vllmBudget(sp *openai.SamplingParams, p *openai.Params, maxTokens *uint32, g GenerationDefaults) error {
	var m *int
	if maxTokens != nil {
		v := int(*maxTokens)
		m = &v
	}
	if p.MaxTokens == nil && g.MaxNewTokens != nil && (m == nil || *g.MaxNewTokens < *m) {
		v := *g.MaxNewTokens
		m = &v
	}
	if m != nil && *m < 1 {
		return openai.BadRequest("max_tokens", fmt.Sprintf("must be at least 1, got %d", *m))
	}
	if m != nil && *m != vllmDefaultMaxTokens {
		sp.MaxTokens = m
	}
	if p.MinTokens != nil {
		mt := *p.MinTokens
		switch {
		case mt < 0:
			return openai.BadRequest("min_tokens", fmt.Sprintf("must be greater than or equal to 0, got %d", mt))
		case m != nil && mt > *m:
			return openai.BadRequest("min_tokens", fmt.Sprintf("must be less than or equal to max_tokens=%d, got %d", *m, mt))
		}
		sp.MinTokens = mt
	}
	return nil
}

// vllmStructured is structured_outputs from response_format: a JSON
// schema, or any JSON object.
func vllmStructured(rf openai.ResponseFormat) *openai.StructuredOutputs {
	switch rf.Type {
	case "json_object":
		t := true
		return &openai.StructuredOutputs{JSONObject: &t}
	case "json_schema":
		return &openai.StructuredOutputs{JSON: rf.Schema}
	}
	return nil
}

// vllmExtraArgs is extra_args: vllm_xargs' entries, then
// kv_transfer_params and ec_transfer_params; nil when none is given.
func vllmExtraArgs(r *openai.RenderParams) []byte {
	var b bytes.Buffer
	if x := bytes.TrimSpace(r.Xargs); len(x) > 2 {
		// The object's members, without its closing brace.
		b.Write(bytes.TrimRight(x[:len(x)-1], " \t\r\n"))
	}
	for _, kv := range []struct {
		key string
		v   []byte
	}{{"kv_transfer_params", r.KVTransfer}, {"ec_transfer_params", r.ECTransfer}} {
		if kv.v == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteByte('{')
		} else if last := b.Bytes()[b.Len()-1]; last != '{' {
			b.WriteByte(',')
		}
		b.WriteString(`"` + kv.key + `":`)
		b.Write(kv.v)
	}
	if b.Len() == 0 {
		return nil
	}
	b.WriteByte('}')
	return b.Bytes()
}
