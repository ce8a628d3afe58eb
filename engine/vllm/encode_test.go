package vllm

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/internal/goldenreq"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/proto/prototest"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

const goldenID = "chatcmpl-0198c7a0-5b1e-7c3d-9a2f-4e6b8d0c1a23"

var sameMessage = goldenreq.SameMessage

// goldenImages are the two images of the image goldens (their raw bytes
// travel in the SGLang one).
func goldenImages(t *testing.T) [][]byte {
	t.Helper()
	sg := prototest.Load(t, "sglang_generate_images.binpb", nil, func() *sglangpb.GenerateRequest { return &sglangpb.GenerateRequest{} })[0]
	return sg.GetMmInputs().GetImageData()
}

// TestEncodeImagesGolden encodes the two-image Qwen2.5-VL request, its
// images preprocessed by mmgate and placed back to back, with the chat
// request's sampling parameters, and compares it with the golden built
// with the upstream definitions as SMG fills it: equal in every field.
func TestEncodeImagesGolden(t *testing.T) {
	want := prototest.Load(t, "vllm_generate_images.binpb", nil, func() *vllmpb.GenerateRequest { return &vllmpb.GenerateRequest{} })[0]
	req, _ := goldenreq.TwoImages(t, goldenImages(t))
	req.ID, req.Stream = goldenID, true
	req.Sampling = protocol.Sampling{
		Temperature: goldenreq.Ptr[float32](0.7), TopP: goldenreq.Ptr[float32](0.9), TopK: goldenreq.Ptr[int32](20), MinP: goldenreq.Ptr[float32](0.05),
		FrequencyPenalty: goldenreq.Ptr[float32](0.25), PresencePenalty: goldenreq.Ptr[float32](0.5), RepetitionPenalty: goldenreq.Ptr[float32](1.05),
		MaxTokens: goldenreq.Ptr[uint32](6), MinTokens: 2, Stop: []string{`"}`}, SkipSpecialTokens: true, N: 2,
		Logprobs: true, TopLogprobs: 3, Seed: goldenreq.Ptr[int64](1234),
		LogitBias:  map[uint32]float32{271: -100, 151643: -100},
		Constraint: protocol.Constraint{Kind: protocol.JSONSchema, Value: `{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`},
	}
	got, err := Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	sameMessage(t, "GenerateRequest", want, got)
	// The joined pixels are the placed buffer itself, not a copy.
	pv := got.GetMmInputs().GetPixelValues().GetInline()
	if len(pv) == 0 || &pv[0] != &req.Media[0].Input.Payload.Inline[0] {
		t.Error("pixel_values were copied")
	}
}

// TestEncodeVideoGolden encodes the Qwen3-VL video request (pixels in
// shared memory) and compares it with the golden. The field layout comes
// from mmgate's Qwen3-VL family, as vLLM's Qwen3-VL model names its video
// fields (video_grid_thw, pixel_values_videos split by patches_per_video);
// SMG's registry adds image keys and video_second_per_grid for every
// request and points the flat input at patches_per_image. Those fields
// differ; every other field is equal.
func TestEncodeVideoGolden(t *testing.T) {
	golden := prototest.Load(t, "vllm_generate_video.binpb", nil, func() *vllmpb.GenerateRequest { return &vllmpb.GenerateRequest{} })[0]
	req, _ := goldenreq.Video(t)
	req.ID = golden.GetRequestId()
	req.Sampling = protocol.Sampling{MaxTokens: goldenreq.Ptr[uint32](64), SkipSpecialTokens: true}
	got, err := Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	want := proto.Clone(golden).(*vllmpb.GenerateRequest)
	mm := want.GetMmInputs()
	side := mm.GetModelSpecificTensors()
	if !proto.Equal(side["patches_per_video"], side["patches_per_image"]) {
		t.Fatal("golden: patches_per_video and patches_per_image differ")
	}
	delete(side, "patches_per_image")
	delete(side, "video_second_per_grid")
	mm.FlatKeys = map[string]string{"pixel_values": "patches_per_video"}
	mm.BatchedKeys = []string{"video_grid_thw", "patches_per_video"}
	mm.KeepOnCpuKeys = []string{"video_grid_thw"}
	sameMessage(t, "GenerateRequest (family layout)", want, got)
	if gm := golden.GetMmInputs(); !proto.Equal(gm.GetPixelValues(), got.GetMmInputs().GetPixelValues()) ||
		!slices.Equal(gm.GetMmHashes(), got.GetMmInputs().GetMmHashes()) {
		t.Error("pixels or hashes differ from the golden")
	}
}

func TestEncodeSampling(t *testing.T) {
	got, err := Encode(&protocol.Request{ID: "r", InputIDs: []uint32{1}})
	if err != nil {
		t.Fatal(err)
	}
	// A request that sets nothing: the chat builder's fallbacks.
	sameMessage(t, "defaults", &vllmpb.SamplingParams{TopP: 1, RepetitionPenalty: 1, SpacesBetweenSpecialTokens: true, N: 1}, got.GetSamplingParams())
	if got.GetMmInputs() != nil || got.GetTokenized() == nil {
		t.Error("text request")
	}
	cases := []struct {
		s    protocol.Sampling
		want *vllmpb.SamplingParams
	}{
		{protocol.Sampling{TopK: goldenreq.Ptr[int32](-1), Logprobs: true}, &vllmpb.SamplingParams{TopP: 1, RepetitionPenalty: 1, SpacesBetweenSpecialTokens: true, N: 1, Logprobs: goldenreq.Ptr[int32](0)}},
		{protocol.Sampling{Constraint: protocol.Constraint{Kind: protocol.JSONObject}}, &vllmpb.SamplingParams{TopP: 1, RepetitionPenalty: 1, SpacesBetweenSpecialTokens: true, N: 1,
			Constraint: &vllmpb.SamplingParams_JsonSchema{JsonSchema: `{"type":"object"}`}}},
		{protocol.Sampling{Constraint: protocol.Constraint{Kind: protocol.Choice, Choices: []string{"a", "b"}}}, &vllmpb.SamplingParams{TopP: 1, RepetitionPenalty: 1, SpacesBetweenSpecialTokens: true, N: 1,
			Constraint: &vllmpb.SamplingParams_Choice{Choice: &vllmpb.ChoiceConstraint{Choices: []string{"a", "b"}}}}},
		{protocol.Sampling{Constraint: protocol.Constraint{Kind: protocol.Grammar, Value: "root ::= x"}, Seed: goldenreq.Ptr[int64](-5)}, &vllmpb.SamplingParams{TopP: 1, RepetitionPenalty: 1, SpacesBetweenSpecialTokens: true, N: 1,
			Seed: goldenreq.Ptr[int32](-5), Constraint: &vllmpb.SamplingParams_Grammar{Grammar: "root ::= x"}}},
		{protocol.Sampling{Constraint: protocol.Constraint{Kind: protocol.Regex, Value: "a+"}, IgnoreEOS: true, StopTokenIDs: []uint32{7}}, &vllmpb.SamplingParams{TopP: 1, RepetitionPenalty: 1, SpacesBetweenSpecialTokens: true, N: 1,
			IgnoreEos: true, StopTokenIds: []uint32{7}, Constraint: &vllmpb.SamplingParams_Regex{Regex: "a+"}}},
	}
	for i, c := range cases {
		got, err := Encode(&protocol.Request{ID: "r", Sampling: c.s})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		sameMessage(t, "sampling", c.want, got.GetSamplingParams())
	}
	for _, s := range []protocol.Sampling{
		{Seed: goldenreq.Ptr[int64](1 << 40)},
		{LogitBias: map[uint32]float32{1 << 31: 1}},
		{Constraint: protocol.Constraint{Kind: 99}},
	} {
		if _, err := Encode(&protocol.Request{ID: "r", Sampling: s}); !errors.Is(err, protocol.ErrUnsupportedParam) {
			t.Errorf("%+v: %v, want ErrUnsupportedParam", s, err)
		}
	}
}

// flatItems are two image items whose inputs are ranges of one segment
// (or, inline, slices of one buffer).
func flatItems(inShm bool) []protocol.MediaItem {
	pad := uint32(goldenreq.ImagePad)
	buf := make([]byte, 3*8*4)
	for i := range buf {
		buf[i] = byte(i)
	}
	var items []protocol.MediaItem
	for k, rows := range []int{1, 2} {
		off := 0
		if k == 1 {
			off = 8 * 4
		}
		p := shm.Payload{Inline: buf[off : off+rows*8*4]}
		if inShm {
			p = shm.Payload{Shm: &shm.Handle{Name: "mmgate-seg", Offset: uint64(off), NBytes: uint64(rows * 8 * 4), Owner: "gw"}}
		}
		items = append(items, protocol.MediaItem{
			Modality: vision.Image, PadToken: &pad, CacheKey: []string{"a", "b"}[k],
			Placeholders: []protocol.Range{{Offset: 2 + 3*k, Length: rows}},
			Input:        protocol.Tensor{Name: "pixel_values", DType: tensor.Float32, Shape: []int{rows, 8}, Payload: p},
			Side:         []protocol.Tensor{protocol.InlineTensor("image_grid_thw", tensor.Int64, []int{1, 3}, bytes.Repeat([]byte{byte(k + 1)}, 24))},
			Fields:       protocol.Fields{Sizes: "patches_per_image", Batched: []string{"image_grid_thw", "patches_per_image"}},
		})
	}
	return items
}

// TestEncodeBatchedInput: an encoder input without a sizes tensor (LLaVA's
// pixel_values, one row per item) is joined along dim 0 and named in
// batched_keys beside the layout's batched side tensors, as SMG declares
// it; a flat input is named in flat_keys only.
func TestEncodeBatchedInput(t *testing.T) {
	pad := uint32(goldenreq.ImagePad)
	buf := make([]byte, 2*8*4)
	var items []protocol.MediaItem
	for k := range 2 {
		items = append(items, protocol.MediaItem{
			Modality: vision.Image, PadToken: &pad, CacheKey: []string{"a", "b"}[k],
			Placeholders: []protocol.Range{{Offset: 2 + 3*k, Length: 2}},
			Input:        protocol.Tensor{Name: "pixel_values", DType: tensor.Float32, Shape: []int{1, 8}, Payload: shm.Payload{Inline: buf[32*k : 32*k+32]}},
			Side:         []protocol.Tensor{protocol.InlineTensor("image_sizes", tensor.Int64, []int{1, 2}, make([]byte, 16))},
			Fields:       protocol.Fields{Batched: []string{"image_sizes"}},
		})
	}
	got, err := Encode(&protocol.Request{ID: "r", InputIDs: make([]uint32, 8), Media: items, Placement: protocol.LayoutFlat})
	if err != nil {
		t.Fatal(err)
	}
	mm := got.GetMmInputs()
	if !slices.Equal(mm.GetBatchedKeys(), []string{"image_sizes", "pixel_values"}) || len(mm.GetFlatKeys()) != 0 {
		t.Errorf("batched keys %v, flat keys %v", mm.GetBatchedKeys(), mm.GetFlatKeys())
	}
	if !slices.Equal(mm.GetPixelValues().GetShape(), []uint32{2, 8}) || !slices.Equal(items[0].Fields.Batched, []string{"image_sizes"}) {
		t.Errorf("pixel_values %v, item fields %v", mm.GetPixelValues().GetShape(), items[0].Fields)
	}
	flat, err := Encode(&protocol.Request{ID: "r", InputIDs: make([]uint32, 8), Media: flatItems(false), Placement: protocol.LayoutFlat})
	if err != nil {
		t.Fatal(err)
	}
	if keys := flat.GetMmInputs().GetBatchedKeys(); slices.Contains(keys, "pixel_values") {
		t.Errorf("flat input in batched_keys %v", keys)
	}
}

func TestEncodeFlatMedia(t *testing.T) {
	req := &protocol.Request{ID: "r", InputIDs: make([]uint32, 8), Media: flatItems(true), Placement: protocol.LayoutFlat}
	got, err := Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	mm := got.GetMmInputs()
	h := mm.GetPixelValues().GetShm()
	if h.GetName() != "mmgate-seg" || h.GetOffset() != 0 || h.GetNbytes() != 3*8*4 || !slices.Equal(mm.GetPixelValues().GetShape(), []uint32{3, 8}) {
		t.Errorf("joined handle %v shape %v", h, mm.GetPixelValues().GetShape())
	}
	sizes := mm.GetModelSpecificTensors()["patches_per_image"]
	if !bytes.Equal(sizes.GetInline(), []byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}) || sizes.GetDtype() != "int64" {
		t.Errorf("sizes %v", sizes)
	}
	if g := mm.GetModelSpecificTensors()["image_grid_thw"]; !slices.Equal(g.GetShape(), []uint32{2, 3}) || len(g.GetInline()) != 48 {
		t.Errorf("grids %v", g)
	}
	if len(mm.GetMmPlaceholders()) != 2 || mm.GetMmPlaceholders()[1].GetOffset() != 5 || !slices.Equal(mm.GetMmHashes(), []string{"a", "b"}) {
		t.Errorf("placeholders %v hashes %v", mm.GetMmPlaceholders(), mm.GetMmHashes())
	}
	// Inline: the slices of one buffer, joined without a copy.
	req.Media = flatItems(false)
	if got, err = Encode(req); err != nil {
		t.Fatal(err)
	}
	if pv := got.GetMmInputs().GetPixelValues().GetInline(); len(pv) != 96 || &pv[0] != &req.Media[0].Input.Payload.Inline[0] {
		t.Error("inline inputs copied")
	}

	refuse := func(name string, want error, mod func([]protocol.MediaItem)) {
		items := flatItems(true)
		mod(items)
		if _, err := Encode(&protocol.Request{ID: "r", Media: items}); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	refuse("two modalities", protocol.ErrUnsupportedParam, func(it []protocol.MediaItem) { it[1].Modality = vision.Video })
	refuse("bfloat16 pixels", protocol.ErrUnsupportedParam, func(it []protocol.MediaItem) {
		for i := range it {
			it[i].Input.DType, it[i].Input.Shape = tensor.BFloat16, []int{it[i].Input.Shape[0], 16}
		}
	})
	refuse("two segments", protocol.ErrBadRequest, func(it []protocol.MediaItem) { it[1].Input.Payload.Shm.Name = "mmgate-other" })
	refuse("a gap in the segment", protocol.ErrBadRequest, func(it []protocol.MediaItem) { it[1].Input.Payload.Shm.Offset += 4 })
	refuse("no cache key", protocol.ErrBadRequest, func(it []protocol.MediaItem) { it[1].CacheKey = "" })
	refuse("no range", protocol.ErrBadRequest, func(it []protocol.MediaItem) { it[1].Placeholders = nil })
	refuse("different pad", protocol.ErrBadRequest, func(it []protocol.MediaItem) { it[1].PadToken = goldenreq.Ptr[uint32](1) })
	refuse("missing side tensor", protocol.ErrBadRequest, func(it []protocol.MediaItem) { it[1].Side = nil })
	refuse("differing shared tensor", protocol.ErrBadRequest, func(it []protocol.MediaItem) {
		for i := range it {
			it[i].Fields.Batched = []string{"patches_per_image"}
		}
	})
}
