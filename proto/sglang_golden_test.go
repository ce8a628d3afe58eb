package proto

import (
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	sglangpb "github.com/mmgate/mmgate/proto/sglang"
)

// TestSglangImagesGolden: the two-image Qwen2.5-VL request as SMG's gateway
// builds it for SGLang: pixels inline as float32, every model-specific
// tensor, the pad runs, the raw image bytes, explicit sampling values and
// no stop strings (a one-token stop travels as a stop token id).
func TestSglangImagesGolden(t *testing.T) {
	var f imageFacts
	req := golden[*sglangpb.GenerateRequest](t, "sglang_generate_images.binpb", &f)[0]
	expect(t, "request_id", req.GetRequestId(), goldenRequestID)
	expect(t, "original_text", req.GetTokenized().GetOriginalText(), f.OriginalText)
	expect(t, "input_ids", req.GetTokenized().GetInputIds(), f.InputIDs)
	expect(t, "logprob request", []any{req.GetReturnLogprob(), req.GetLogprobStartLen(), req.GetTopLogprobsNum(), len(req.GetTokenIdsLogprob())},
		[]any{true, int32(-1), int32(2), 0})
	expect(t, "stream", req.GetStream(), true)
	expect(t, "fields SMG leaves unset", []any{req.GetReturnHiddenStates(), req.GetDisaggregatedParams() == nil,
		req.GetCustomLogitProcessor(), req.GetTimestamp() == nil, req.GetLogMetrics(), len(req.GetInputEmbeds()),
		req.GetLoraId(), req.GetDataParallelRank(), req.GetRequireReasoning()},
		[]any{false, true, "", true, false, 0, "", int32(0), false})

	sp := req.GetSamplingParams()
	expect(t, "temperature, top_p, min_p", []float32{sp.GetTemperature(), sp.GetTopP(), sp.GetMinP()}, []float32{0.7, 0.9, 0})
	expect(t, "top_k", sp.GetTopK(), int32(20))
	expect(t, "penalties", []float32{sp.GetFrequencyPenalty(), sp.GetPresencePenalty(), sp.GetRepetitionPenalty()}, []float32{0, 0, 1.05})
	// SGLang's sampler gets these unchecked: they must be in range.
	expect(t, "explicit sampling values in SGLang's ranges", sp.GetTopP() > 0 && sp.GetTopP() <= 1 &&
		(sp.GetTopK() == -1 || sp.GetTopK() >= 1) && sp.GetRepetitionPenalty() > 0 && sp.GetRepetitionPenalty() <= 2, true)
	expect(t, "max_new_tokens", sp.MaxNewTokens != nil && *sp.MaxNewTokens == 16, true)
	expect(t, "no stop strings", len(sp.GetStop()), 0)
	expect(t, "stop_token_ids", sp.GetStopTokenIds(), f.StopTokenIDs)
	expect(t, "stop_token_ids fact", f.StopTokenIDs, []uint32{271})
	expect(t, "flags", []bool{sp.GetSkipSpecialTokens(), sp.GetSpacesBetweenSpecialTokens(), sp.GetIgnoreEos(), sp.GetNoStopTrim()},
		[]bool{true, true, false, false})
	expect(t, "n, min_new_tokens", []uint32{sp.GetN(), sp.GetMinNewTokens()}, []uint32{2, 0})
	expect(t, "stream_interval unset", sp.StreamInterval == nil, true)
	_, ok := sp.GetConstraint().(*sglangpb.SamplingParams_Regex)
	expect(t, "constraint is regex", []any{ok, sp.GetRegex()}, []any{true, "(Red|Green|Blue)[a-z ,.]*"})
	expect(t, "logit_bias", sp.GetLogitBias(), map[string]float32{"151643": -100})
	want, _ := structpb.NewStruct(map[string]any{"seed": 1234})
	expect(t, "custom_params", sp.GetCustomParams().AsMap(), want.AsMap())

	mm := req.GetMmInputs()
	pv := mm.GetPixelValues()
	expect(t, "pixel_values shape/dtype", []any{pv.GetShape(), pv.GetDtype()}, []any{f.PixelShape, "float32"})
	expect(t, "pixel_values sha256 (reference)", sha256Hex(pv.GetData()), f.PixelSHA256)
	side := mm.GetModelSpecificTensors()
	expect(t, "model_specific_tensors", len(side), 2)
	grid, patches := side["image_grid_thw"], side["patches_per_image"]
	expect(t, "image_grid_thw", []any{grid.GetShape(), grid.GetDtype(), values[int64](t, grid.GetData())},
		[]any{[]uint32{2, 3}, "int64", flatGrids(f.Grids)})
	expect(t, "patches_per_image", []any{patches.GetShape(), patches.GetDtype(), values[int64](t, patches.GetData())},
		[]any{[]uint32{2}, "int64", f.Patches})
	expect(t, "im_token_id", mm.ImTokenId != nil && *mm.ImTokenId == imagePad, true)
	var ph [][]uint32
	for _, r := range mm.GetMmPlaceholders() {
		ph = append(ph, []uint32{r.GetOffset(), r.GetLength()})
	}
	expect(t, "mm_placeholders", ph, f.Placeholders)
	expect(t, "placeholders are the pad runs", padRuns(f.InputIDs, imagePad), f.Placeholders)
	expect(t, "image_data", len(mm.GetImageData()), 2)
	for i, img := range mm.GetImageData() {
		expect(t, "image bytes", sha256Hex(img), f.ImageSHA256[i])
		expect(t, "image is a PNG", string(img[1:4]), "PNG")
	}
	expect(t, "modalities", mm.GetModalities(), []string{"image"})
	expect(t, "urls and other media unset", len(mm.GetImageUrls())+len(mm.GetVideoUrls())+len(mm.GetAudioUrls())+
		len(mm.GetVideoData())+len(mm.GetAudioData()), 0)
}

// TestSglangStreamGolden: the stream an SGLang worker sends for that request
// (n=2, streaming, top_logprobs 2). Chunks carry each step's new tokens with
// running totals; the last step comes twice, as a chunk and then as the
// complete, whose completion_tokens is the sequence's total.
func TestSglangStreamGolden(t *testing.T) {
	var f struct {
		streamFacts
		MatchedTokenIDs []uint32 `json:"matched_token_ids"`
	}
	msgs := golden[*sglangpb.GenerateResponse](t, "sglang_generate_stream.binpb", &f)
	var img imageFacts
	golden[*sglangpb.GenerateRequest](t, "sglang_generate_images.binpb", &img)
	expect(t, "prompt_tokens fact", f.PromptTokens, uint32(len(img.InputIDs)))
	streamed, steps, last := map[uint32][]uint32{}, map[uint32][]int{}, map[uint32][]uint32{}
	completes := map[uint32]*sglangpb.GenerateComplete{}
	var prev *sglangpb.GenerateStreamChunk
	for _, m := range msgs {
		expect(t, "response request_id", m.GetRequestId(), goldenRequestID)
		switch r := m.GetResponse().(type) {
		case *sglangpb.GenerateResponse_Chunk:
			c := r.Chunk
			i := c.GetIndex()
			streamed[i] = append(streamed[i], c.GetTokenIds()...)
			steps[i] = append(steps[i], len(c.GetTokenIds()))
			last[i] = c.GetTokenIds()
			expect(t, "chunk completion_tokens (running total)", c.GetCompletionTokens(), uint32(len(streamed[i])))
			expect(t, "chunk counters", []uint32{c.GetPromptTokens(), c.GetCachedTokens(), c.GetReasoningTokens()},
				[]uint32{f.PromptTokens, f.CachedTokens, 0})
			checkLogprobs[*sglangpb.TopLogProbs](t, c.GetOutputLogprobs(), c.GetTokenIds(), 2)
			expect(t, "chunk input_logprobs/hidden states", c.GetInputLogprobs() == nil && len(c.GetHiddenStates()) == 0, true)
			prev = c
		case *sglangpb.GenerateResponse_Complete:
			c := r.Complete
			i := c.GetIndex()
			expect(t, "complete follows its sequence's last chunk", prev != nil && prev.GetIndex() == i, true)
			expect(t, "complete output_ids = last step only", c.GetOutputIds(), last[i])
			expect(t, "complete completion_tokens = total", c.GetCompletionTokens(), uint32(len(streamed[i])))
			expect(t, "complete counters", []uint32{c.GetPromptTokens(), c.GetCachedTokens(), c.GetReasoningTokens()},
				[]uint32{f.PromptTokens, f.CachedTokens, 0})
			checkLogprobs[*sglangpb.TopLogProbs](t, c.GetOutputLogprobs(), c.GetOutputIds(), 2)
			_, isID := c.GetMatchedStop().(*sglangpb.GenerateComplete_MatchedTokenId)
			expect(t, "finish", []any{c.GetFinishReason(), isID, c.GetMatchedTokenId()}, []any{"stop", true, f.MatchedTokenIDs[i]})
			expect(t, "matched token ends the output", streamed[i][len(streamed[i])-1], f.MatchedTokenIDs[i])
			completes[i] = c
			prev = nil
		default:
			t.Errorf("response without chunk or complete")
		}
	}
	expect(t, "sequences", []int{len(f.Sequences), len(completes)}, []int{2, 2})
	for _, s := range f.Sequences {
		expect(t, "chunks carry the whole output", streamed[s.Index], s.IDs)
		expect(t, "engine steps", steps[s.Index], s.Steps)
	}
	expect(t, "matched tokens: EOS, then the stop token", f.MatchedTokenIDs, []uint32{151645, 271})
}

// TestSglangInfoGoldens: GetModelInfo and GetServerInfo as the SGLang
// servicer fills them, Struct and Timestamp fields included.
func TestSglangInfoGoldens(t *testing.T) {
	mi := golden[*sglangpb.GetModelInfoResponse](t, "sglang_model_info.binpb", nil)[0]
	expect(t, "model info", []any{mi.GetModelPath(), mi.GetTokenizerPath(), mi.GetIsGeneration(), mi.GetPreferredSamplingParams(),
		mi.GetWeightVersion(), mi.GetServedModelName(), mi.GetMaxContextLength(), mi.GetVocabSize(), mi.GetSupportsVision(),
		mi.GetModelType(), mi.GetEosTokenIds(), mi.GetPadTokenId(), mi.GetBosTokenId(), mi.GetMaxReqInputLen(),
		mi.GetArchitectures(), mi.GetId2LabelJson(), mi.GetNumLabels(), mi.GetDefaultSamplingParamsJson()},
		[]any{"Qwen/Qwen2.5-VL-7B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct", true, "", "default", "qwen2.5-vl",
			int32(128000), int32(152064), true, "qwen2_5_vl", []int32{151645, 151643}, int32(151643), int32(151643),
			int32(127995), []string{"Qwen2_5_VLForConditionalGeneration"}, "", int32(0),
			`{"temperature":0.1,"top_p":0.001,"top_k":1,"repetition_penalty":1.05}`})
	si := golden[*sglangpb.GetServerInfoResponse](t, "sglang_server_info.binpb", nil)[0]
	expect(t, "server info", []any{si.GetActiveRequests(), si.GetIsPaused(), si.GetLastReceiveTimestamp(), si.GetUptimeSeconds(),
		si.GetSglangVersion(), si.GetServerType(), si.GetStartTime().GetSeconds(), si.GetStartTime().GetNanos(), si.GetMaxTotalNumTokens()},
		[]any{int32(1), false, 1767225612.5, 24.25, "0.5.6", "grpc", int64(1767225588), int32(0), int32(412000)})
	expect(t, "server_args", si.GetServerArgs().AsMap(), map[string]any{"model_path": "Qwen/Qwen2.5-VL-7B-Instruct",
		"tp_size": 1.0, "skip_tokenizer_init": true, "context_length": nil, "served_model_name": "qwen2.5-vl"})
	expect(t, "scheduler_info", si.GetSchedulerInfo().AsMap(), map[string]any{"max_total_num_tokens": 412000.0,
		"max_req_input_len": 127995.0, "status": "ready"})
}
