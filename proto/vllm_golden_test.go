package proto

import (
	"os"
	"strings"
	"testing"

	commonpb "github.com/mmgate/mmgate/proto/common"
	"github.com/mmgate/mmgate/proto/prototest"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
)

const (
	goldenRequestID = "chatcmpl-0198c7a0-5b1e-7c3d-9a2f-4e6b8d0c1a23"
	imagePad        = 151655
	videoPad        = 151656
	visionStart     = 151652
)

// The facts behind the goldens (shared with the protocol packages' tests).
type (
	imageFacts  = prototest.ImageFacts
	videoFacts  = prototest.VideoFacts
	streamFacts = prototest.StreamFacts
)

func vllmRanges(rs []*vllmpb.PlaceholderRange) [][]uint32 {
	var out [][]uint32
	for _, r := range rs {
		out = append(out, []uint32{r.GetOffset(), r.GetLength()})
	}
	return out
}

// TestVllmImagesGolden: a two-image Qwen2.5-VL request as SMG's gateway
// builds it for vLLM, with the reference pixels inline.
func TestVllmImagesGolden(t *testing.T) {
	var f imageFacts
	req := golden[*vllmpb.GenerateRequest](t, "vllm_generate_images.binpb", &f)[0]
	expect(t, "request_id", req.GetRequestId(), goldenRequestID)
	expect(t, "input is tokenized", req.GetTokenized() != nil && req.GetText() == "", true)
	expect(t, "original_text", req.GetTokenized().GetOriginalText(), f.OriginalText)
	expect(t, "input_ids", req.GetTokenized().GetInputIds(), f.InputIDs)
	expect(t, "stream", req.GetStream(), true)
	expect(t, "kv/dp fields unset", req.KvTransferParams == nil && req.KvTransferParamsJson == nil && req.DataParallelRank == nil, true)

	sp := req.GetSamplingParams()
	expect(t, "temperature", sp.Temperature != nil && *sp.Temperature == float32(0.7), true)
	expect(t, "top_p, min_p", []float32{sp.GetTopP(), sp.GetMinP()}, []float32{0.9, 0.05})
	expect(t, "top_k", sp.GetTopK(), uint32(20))
	expect(t, "penalties", []float32{sp.GetFrequencyPenalty(), sp.GetPresencePenalty(), sp.GetRepetitionPenalty()}, []float32{0.25, 0.5, 1.05})
	expect(t, "max_tokens", sp.MaxTokens != nil && *sp.MaxTokens == 6, true)
	expect(t, "min_tokens", sp.GetMinTokens(), uint32(2))
	expect(t, "stop", sp.GetStop(), []string{`"}`})
	expect(t, "stop_token_ids", len(sp.GetStopTokenIds()), 0)
	expect(t, "skip_special_tokens, spaces_between, ignore_eos, include_stop_str",
		[]bool{sp.GetSkipSpecialTokens(), sp.GetSpacesBetweenSpecialTokens(), sp.GetIgnoreEos(), sp.GetIncludeStopStrInOutput()},
		[]bool{true, true, false, false})
	expect(t, "n", sp.GetN(), uint32(2))
	expect(t, "logprobs", sp.Logprobs != nil && *sp.Logprobs == 3, true)
	expect(t, "seed", sp.Seed != nil && *sp.Seed == 1234, true)
	expect(t, "prompt_logprobs, truncate unset", sp.PromptLogprobs == nil && sp.TruncatePromptTokens == nil, true)
	expect(t, "logit_bias", sp.GetLogitBias(), map[int32]float32{271: -100, 151643: -100})
	_, ok := sp.GetConstraint().(*vllmpb.SamplingParams_JsonSchema)
	expect(t, "constraint is json_schema", ok, true)
	expect(t, "json_schema", sp.GetJsonSchema(), `{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)

	mm := req.GetMmInputs()
	pv := mm.GetPixelValues()
	expect(t, "pixel_values shape/dtype", []any{pv.GetShape(), pv.GetDtype()}, []any{f.PixelShape, "float32"})
	expect(t, "pixel_values inline", pv.GetShm() == nil && pv.GetRemote() == nil && len(pv.GetInline()) == int(f.PixelShape[0]*f.PixelShape[1]*4), true)
	expect(t, "pixel_values sha256 (reference)", sha256Hex(pv.GetInline()), f.PixelSHA256)
	side := mm.GetModelSpecificTensors()
	expect(t, "model_specific_tensors", len(side), 2)
	grid, patches := side["image_grid_thw"], side["patches_per_image"]
	expect(t, "image_grid_thw", []any{grid.GetShape(), grid.GetDtype(), values[int64](t, grid.GetInline())},
		[]any{[]uint32{2, 3}, "int64", flatGrids(f.Grids)})
	expect(t, "patches_per_image", []any{patches.GetShape(), patches.GetDtype(), values[int64](t, patches.GetInline())},
		[]any{[]uint32{2}, "int64", f.Patches})
	var sum int64
	for i, g := range f.Grids {
		expect(t, "patches = t*h*w", f.Patches[i], g[0]*g[1]*g[2])
		expect(t, "pads = t*h*w/4", int64(f.Placeholders[i][1]), g[0]*g[1]*g[2]/4)
		sum += f.Patches[i]
	}
	expect(t, "sizes tensor sums to dim 0", sum, int64(f.PixelShape[0]))
	expect(t, "im_token_id", mm.ImTokenId != nil && *mm.ImTokenId == imagePad, true)
	expect(t, "mm_placeholders", vllmRanges(mm.GetMmPlaceholders()), f.Placeholders)
	expect(t, "placeholders are the pad runs", padRuns(f.InputIDs, imagePad), f.Placeholders)
	expect(t, "mm_hashes", mm.GetMmHashes(), f.MmHashes)
	expect(t, "batched_keys", mm.GetBatchedKeys(), []string{"image_grid_thw", "patches_per_image"})
	expect(t, "flat_keys", mm.GetFlatKeys(), map[string]string{"pixel_values": "patches_per_image"})
	expect(t, "keep_on_cpu_keys", mm.GetKeepOnCpuKeys(), []string{"image_grid_thw"})
	expect(t, "modality", mm.GetModality(), commonpb.Modality_IMAGE)

	// mm_hashes are the BLAKE3 hex digests of the images' bytes (the same
	// images travel raw in the SGLang golden).
	sg := golden[*sglangpb.GenerateRequest](t, "sglang_generate_images.binpb", nil)[0]
	for i, img := range sg.GetMmInputs().GetImageData() {
		expect(t, "mm_hashes[i] = BLAKE3(image bytes)", mm.GetMmHashes()[i], blake3Hex(img))
	}
}

// TestVllmVideoGolden: a Qwen3-VL video request (modality VIDEO) with the
// pixels in /dev/shm and the structural placeholder SMG sends.
func TestVllmVideoGolden(t *testing.T) {
	var f videoFacts
	req := golden[*vllmpb.GenerateRequest](t, "vllm_generate_video.binpb", &f)[0]
	expect(t, "request_id", req.GetRequestId(), strings.Replace(goldenRequestID, "0198c7a0", "0198c7a1", 1))
	expect(t, "original_text", req.GetTokenized().GetOriginalText(), f.OriginalText)
	expect(t, "input_ids", req.GetTokenized().GetInputIds(), f.InputIDs)
	expect(t, "stream", req.GetStream(), false)

	// The chat builder's fallbacks for a request that sets only max tokens.
	sp := req.GetSamplingParams()
	expect(t, "temperature unset", sp.Temperature == nil, true)
	expect(t, "floats", []float32{sp.GetTopP(), sp.GetMinP(), sp.GetFrequencyPenalty(), sp.GetPresencePenalty(), sp.GetRepetitionPenalty()},
		[]float32{1, 0, 0, 0, 1})
	expect(t, "top_k, min_tokens, n", []uint32{sp.GetTopK(), sp.GetMinTokens(), sp.GetN()}, []uint32{0, 0, 1})
	expect(t, "max_tokens", sp.MaxTokens != nil && *sp.MaxTokens == 64, true)
	expect(t, "optional ints unset", sp.Logprobs == nil && sp.Seed == nil && sp.PromptLogprobs == nil, true)
	expect(t, "no constraint, stop or bias", sp.GetConstraint() == nil && len(sp.GetStop()) == 0 && len(sp.GetLogitBias()) == 0, true)
	expect(t, "skip_special_tokens, spaces_between", []bool{sp.GetSkipSpecialTokens(), sp.GetSpacesBetweenSpecialTokens()}, []bool{true, true})

	mm := req.GetMmInputs()
	pv := mm.GetPixelValues()
	expect(t, "pixel_values shape/dtype", []any{pv.GetShape(), pv.GetDtype()}, []any{f.PixelShape, "float32"})
	shm := pv.GetShm()
	expect(t, "pixel_values via shm", shm != nil && pv.GetInline() == nil, true)
	expect(t, "shm handle", []any{shm.GetName(), shm.GetOffset(), shm.GetNbytes(), shm.GetOwnerId()},
		[]any{f.Shm.Name, uint64(0), f.Shm.Nbytes, f.Shm.OwnerID})
	expect(t, "shm nbytes = rows*cols*4", shm.GetNbytes(), uint64(f.PixelShape[0])*uint64(f.PixelShape[1])*4)
	expect(t, "shm name is a bare file name", !strings.ContainsAny(shm.GetName(), "/\x00") && strings.HasPrefix(shm.GetName(), "smg-tokenspeed-"), true)
	side := mm.GetModelSpecificTensors()
	expect(t, "model_specific_tensors", len(side), 4)
	rows := int64(f.PixelShape[0])
	for key, want := range map[string][]any{
		"video_grid_thw":    {[]uint32{1, 3}, "int64", f.Grid},
		"patches_per_video": {[]uint32{1}, "int64", []int64{rows}},
		"patches_per_image": {[]uint32{1}, "int64", []int64{rows}},
	} {
		td := side[key]
		expect(t, key, []any{td.GetShape(), td.GetDtype(), values[int64](t, td.GetInline())}, want)
	}
	sec := side["video_second_per_grid"]
	expect(t, "video_second_per_grid", []any{sec.GetShape(), sec.GetDtype(), values[float32](t, sec.GetInline())},
		[]any{[]uint32{1}, "float32", []float32{1}})
	expect(t, "t*h*w = rows", f.Grid[0]*f.Grid[1]*f.Grid[2], rows)
	expect(t, "im_token_id", mm.ImTokenId != nil && *mm.ImTokenId == videoPad, true)
	expect(t, "mm_placeholders", vllmRanges(mm.GetMmPlaceholders()), [][]uint32{f.Placeholder})
	checkVideoRange(t, f)
	clip, err := os.ReadFile("../" + f.Clip)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "mm_hashes = BLAKE3(clip)", mm.GetMmHashes(), []string{blake3Hex(clip)})
	expect(t, "mm_hash fact", f.MmHash, blake3Hex(clip))
	expect(t, "batched_keys", mm.GetBatchedKeys(), []string{"image_grid_thw", "patches_per_image", "patches_per_video", "video_grid_thw", "video_second_per_grid"})
	expect(t, "flat_keys", mm.GetFlatKeys(), map[string]string{"pixel_values": "patches_per_image"})
	expect(t, "keep_on_cpu_keys", mm.GetKeepOnCpuKeys(), []string{"image_grid_thw", "video_grid_thw"})
	expect(t, "modality", mm.GetModality(), commonpb.Modality_VIDEO)
}

// checkVideoRange checks the structural range of a timestamped video: from
// the first <|vision_start|> to the last pad, holding every pad run (one per
// temporal group) and nothing after.
func checkVideoRange(t *testing.T, f videoFacts) {
	t.Helper()
	off, n := f.Placeholder[0], f.Placeholder[1]
	runs := padRuns(f.InputIDs, videoPad)
	expect(t, "pad runs", runs, f.PadRuns)
	expect(t, "one run per temporal group", int64(len(runs)), f.Grid[0])
	last := runs[len(runs)-1]
	expect(t, "range starts at <|vision_start|>", f.InputIDs[off], uint32(visionStart))
	expect(t, "range ends with the last pad", off+n, last[0]+last[1])
	expect(t, "range holds the first run", runs[0][0] > off, true)
	var pads int64
	for _, id := range f.InputIDs[off : off+n] {
		if id == videoPad {
			pads++
		}
	}
	expect(t, "pads = t*h*w/4", pads, f.Grid[0]*f.Grid[1]*f.Grid[2]/4)
}

// TestVllmStreamGolden: the stream a vLLM worker sends for the two-image
// request (n=2, streaming, logprobs 3). Each chunk is one engine step of one
// sequence; each sequence ends with a complete that repeats only its last
// step, whose completion_tokens counts that step alone: the text comes from
// the chunks and the usage from summing their lengths.
func TestVllmStreamGolden(t *testing.T) {
	var f struct {
		streamFacts
		Finish map[string]struct {
			FinishReason   string  `json:"finish_reason"`
			MatchedStopStr *string `json:"matched_stop_str"`
		} `json:"finish"`
	}
	msgs := golden[*vllmpb.GenerateResponse](t, "vllm_generate_stream.binpb", &f)
	var img imageFacts
	golden[*vllmpb.GenerateRequest](t, "vllm_generate_images.binpb", &img)
	expect(t, "prompt_tokens fact", f.PromptTokens, uint32(len(img.InputIDs)))
	streamed, steps, last := map[uint32][]uint32{}, map[uint32][]int{}, map[uint32][]uint32{}
	completes := map[uint32]*vllmpb.GenerateComplete{}
	var prev *vllmpb.GenerateStreamChunk
	usage := 0
	for _, m := range msgs {
		switch r := m.GetResponse().(type) {
		case *vllmpb.GenerateResponse_Chunk:
			c := r.Chunk
			if completes[c.GetIndex()] != nil {
				t.Errorf("chunk of sequence %d after its complete", c.GetIndex())
			}
			expect(t, "chunk completion_tokens (this step)", c.GetCompletionTokens(), uint32(len(c.GetTokenIds())))
			expect(t, "chunk prompt/cached", []uint32{c.GetPromptTokens(), c.GetCachedTokens()}, []uint32{f.PromptTokens, f.CachedTokens})
			checkLogprobs[*vllmpb.TopLogProbs](t, c.GetOutputLogprobs(), c.GetTokenIds(), 3)
			expect(t, "chunk input_logprobs", c.GetInputLogprobs() == nil, true)
			streamed[c.GetIndex()] = append(streamed[c.GetIndex()], c.GetTokenIds()...)
			steps[c.GetIndex()] = append(steps[c.GetIndex()], len(c.GetTokenIds()))
			last[c.GetIndex()] = c.GetTokenIds()
			usage += len(c.GetTokenIds())
			prev = c
		case *vllmpb.GenerateResponse_Complete:
			c := r.Complete
			expect(t, "complete follows its sequence's last chunk", prev != nil && prev.GetIndex() == c.GetIndex(), true)
			expect(t, "complete output_ids = last step only", c.GetOutputIds(), last[c.GetIndex()])
			expect(t, "complete completion_tokens = last step only", c.GetCompletionTokens(), uint32(len(last[c.GetIndex()])))
			expect(t, "complete prompt/cached", []uint32{c.GetPromptTokens(), c.GetCachedTokens()}, []uint32{f.PromptTokens, f.CachedTokens})
			checkLogprobs[*vllmpb.TopLogProbs](t, c.GetOutputLogprobs(), c.GetOutputIds(), 3)
			expect(t, "complete kv fields unset", c.GetKvTransferParams() == nil && c.KvTransferParamsJson == nil, true)
			completes[c.GetIndex()] = c
			prev = nil
		default:
			t.Errorf("response without chunk or complete")
		}
	}
	expect(t, "sequences", len(f.Sequences), 2)
	want := 0
	for _, s := range f.Sequences {
		expect(t, "chunks carry the whole output", streamed[s.Index], s.IDs)
		expect(t, "engine steps", steps[s.Index], s.Steps)
		want += len(s.IDs)
	}
	expect(t, "usage = sum of chunk lengths", usage, want)
	c0, c1 := completes[0], completes[1]
	expect(t, "sequence 0 finish", []any{c0.GetFinishReason(), c0.GetMatchedStopStr(), *f.Finish["0"].MatchedStopStr}, []any{"stop", `"}`, `"}`})
	_, isStr := c0.GetMatchedStop().(*vllmpb.GenerateComplete_MatchedStopStr)
	expect(t, "sequence 0 matched a stop string", isStr, true)
	expect(t, "sequence 1 finish", []any{c1.GetFinishReason(), c1.GetMatchedStop() == nil, f.Finish["1"].FinishReason}, []any{"length", true, "length"})
}

// TestVllmInfoGoldens: GetModelInfo and GetServerInfo as the vLLM servicer
// fills them; server info carries the shm namespace and no server type or
// counters.
func TestVllmInfoGoldens(t *testing.T) {
	mi := golden[*vllmpb.GetModelInfoResponse](t, "vllm_model_info.binpb", nil)[0]
	expect(t, "model info", []any{mi.GetModelPath(), mi.GetIsGeneration(), mi.GetMaxContextLength(), mi.GetVocabSize(),
		mi.GetSupportsVision(), mi.GetServedModelName(), mi.GetTokenizerPath(), mi.GetModelType(), mi.GetArchitectures(),
		mi.GetEosTokenIds(), mi.GetPadTokenId(), mi.GetBosTokenId(), mi.GetMaxReqInputLen(), mi.GetDefaultSamplingParamsJson()},
		[]any{"Qwen/Qwen2.5-VL-7B-Instruct", true, uint32(128000), uint32(152064), true, "qwen2.5-vl",
			"Qwen/Qwen2.5-VL-7B-Instruct", "qwen2_5_vl", []string{"Qwen2_5_VLForConditionalGeneration"},
			[]int32{151645}, int32(0), int32(151643), int32(128000),
			`{"temperature":0.1,"top_p":0.001,"top_k":1,"repetition_penalty":1.05}`})
	var f struct {
		ShmNamespaceID string `json:"shm_namespace_id"`
	}
	si := golden[*vllmpb.GetServerInfoResponse](t, "vllm_server_info.binpb", &f)[0]
	expect(t, "shm_namespace_id", si.GetShmNamespaceId(), f.ShmNamespaceID)
	expect(t, "shm_namespace_id form <boot_id>:<st_dev>", strings.Count(si.GetShmNamespaceId(), ":") == 1 && len(si.GetShmNamespaceId()) == 39, true)
	expect(t, "data_parallel_size", si.GetDataParallelSize(), int32(1))
	expect(t, "fields the servicer leaves unset", []any{si.GetActiveRequests(), si.GetIsPaused(), si.GetLastReceiveTimestamp(),
		si.GetUptimeSeconds(), si.GetServerType(), si.GetKvConnector(), si.GetKvRole(), si.GetKvEngineId()},
		[]any{uint32(0), false, 0.0, 0.0, "", "", "", ""})
}
