package tokenspeed

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mmgate/mmgate/engine/protocol"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

func f32(v float32) *float32 { return &v }
func u32(v uint32) *uint32   { return &v }

// fullRequest sets every field of the neutral request: an image whose
// encoder input is in shared memory and a video sent inline.
func fullRequest() *protocol.Request {
	topK, seed := int32(40), int64(1234)
	return &protocol.Request{
		ID:       "req-1",
		InputIDs: []uint32{151644, 151652, 151655, 151655, 151653, 151652, 151656, 151653},
		Text:     "<|im_start|>…",
		Stream:   true,
		Sampling: protocol.Sampling{
			Temperature: f32(0.7), TopP: f32(0.9), TopK: &topK, MinP: f32(0.05),
			FrequencyPenalty: f32(0.1), PresencePenalty: f32(0.2), RepetitionPenalty: f32(1.1),
			MaxTokens: u32(64), MinTokens: 2,
			Stop: []string{"END"}, StopTokenIDs: []uint32{151645, 151643},
			IgnoreEOS: true, SkipSpecialTokens: true, N: 3, Seed: &seed,
			LogitBias: map[uint32]float32{42: -100, 7: 2.5},
			Logprobs:  true, TopLogprobs: 5,
			Constraint: protocol.Constraint{Kind: protocol.JSONSchema, Value: `{"type":"string"}`},
		},
		Media: []protocol.MediaItem{
			{
				Modality: vision.Image, Hash: []byte{1, 2, 3}, PadToken: u32(151655),
				Placeholders: []protocol.Range{{Offset: 2, Length: 2}},
				Structural:   protocol.Range{Offset: 2, Length: 2},
				Input: protocol.Tensor{Name: "pixel_values", DType: tensor.BFloat16, Shape: []int{8, 1536},
					Payload: shm.Payload{Shm: &shm.Handle{Name: "mmgate-x", NBytes: 8 * 1536 * 2, Owner: "gw"}}},
				Side: []protocol.Tensor{protocol.InlineTensor("image_grid_thw", tensor.Int64, []int{1, 3}, []byte{1, 0, 0, 0, 0, 0, 0, 0})},
				Raw:  []byte("jpeg bytes"),
			},
			{
				Modality: vision.Video, Hash: []byte{4, 5}, PadToken: u32(151656),
				Placeholders: []protocol.Range{{Offset: 6, Length: 1}},
				Input:        protocol.InlineTensor("pixel_values_videos", tensor.Float32, []int{4, 1536}, []byte{9, 9}),
				Side: []protocol.Tensor{
					protocol.InlineTensor("video_grid_thw", tensor.Int64, []int{1, 3}, []byte{2}),
					protocol.InlineTensor("second_per_grid_ts", tensor.Float32, []int{1}, []byte{0, 0, 0, 64}),
				},
			},
		},
	}
}

// sameMessage fails unless got equals want in every field (proto.Equal).
func sameMessage(t *testing.T, what string, want, got proto.Message) {
	t.Helper()
	if !proto.Equal(want, got) {
		t.Errorf("%s differs:\nwant %s\ngot  %s", what, prototext.Format(want), prototext.Format(got))
	}
}

func TestEncodeFieldByField(t *testing.T) {
	got, err := Encode(fullRequest())
	if err != nil {
		t.Fatal(err)
	}
	seed, err := structpb.NewStruct(map[string]any{"seed": 1234.0})
	if err != nil {
		t.Fatal(err)
	}
	topK := int32(40)
	inline := func(dt string, shape []uint32, b []byte) *schedulerpb.TensorData {
		return &schedulerpb.TensorData{Shape: shape, Dtype: dt, Payload: &schedulerpb.TensorData_Inline{Inline: b}}
	}
	want := &schedulerpb.GenerateRequest{
		RequestId: "req-1",
		Tokenized: &schedulerpb.TokenizedInput{
			InputIds:     []uint32{151644, 151652, 151655, 151655, 151653, 151652, 151656, 151653},
			OriginalText: "<|im_start|>…",
		},
		SamplingParams: &schedulerpb.SamplingParams{
			Temperature: f32(0.7), TopP: f32(0.9), TopK: &topK, MinP: f32(0.05),
			FrequencyPenalty: f32(0.1), PresencePenalty: f32(0.2), RepetitionPenalty: f32(1.1),
			MaxNewTokens: u32(64), MinNewTokens: 2,
			Stop: []string{"END"}, StopTokenIds: []uint32{151645, 151643},
			IgnoreEos: true, SkipSpecialTokens: true, N: 3,
			LogitBias:    map[string]float32{"42": -100, "7": 2.5},
			Constraint:   &schedulerpb.SamplingParams_JsonSchema{JsonSchema: `{"type":"string"}`},
			CustomParams: seed,
		},
		ReturnLogprob:  true,
		TopLogprobsNum: 5,
		Stream:         true,
		MmInputs: &schedulerpb.MultimodalInputs{Items: []*schedulerpb.MultimodalItem{
			{
				Modality:    commonpb.Modality_IMAGE,
				ContentHash: []byte{1, 2, 3},
				EncoderInput: &schedulerpb.TensorData{Shape: []uint32{8, 1536}, Dtype: "bfloat16",
					Payload: &schedulerpb.TensorData_Shm{Shm: &commonpb.ShmHandle{Name: "mmgate-x", Nbytes: 8 * 1536 * 2, OwnerId: "gw"}}},
				ModelSpecificTensors: map[string]*schedulerpb.TensorData{"image_grid_thw": inline("int64", []uint32{1, 3}, []byte{1, 0, 0, 0, 0, 0, 0, 0})},
				Placeholders:         []*schedulerpb.PlaceholderRange{{Offset: 2, Length: 2}},
				PlaceholderTokenId:   u32(151655),
			},
			{
				Modality:     commonpb.Modality_VIDEO,
				ContentHash:  []byte{4, 5},
				EncoderInput: inline("float32", []uint32{4, 1536}, []byte{9, 9}),
				ModelSpecificTensors: map[string]*schedulerpb.TensorData{
					"video_grid_thw":     inline("int64", []uint32{1, 3}, []byte{2}),
					"second_per_grid_ts": inline("float32", []uint32{1}, []byte{0, 0, 0, 64}),
				},
				Placeholders:       []*schedulerpb.PlaceholderRange{{Offset: 6, Length: 1}},
				PlaceholderTokenId: u32(151656),
			},
		}},
	}
	sameMessage(t, "GenerateRequest", want, got)
	// Through the wire and back: the same message.
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var back schedulerpb.GenerateRequest
	if err := proto.Unmarshal(b, &back); err != nil || !proto.Equal(&back, want) {
		t.Fatalf("round trip: %v", err)
	}
}

func TestEncodeDefaultsAndConstraints(t *testing.T) {
	// An empty request: n is 1, nothing optional is set, no mm_inputs.
	got, err := Encode(&protocol.Request{ID: "r", InputIDs: []uint32{1}})
	if err != nil {
		t.Fatal(err)
	}
	want := &schedulerpb.GenerateRequest{RequestId: "r", Tokenized: &schedulerpb.TokenizedInput{InputIds: []uint32{1}},
		SamplingParams: &schedulerpb.SamplingParams{N: 1}}
	sameMessage(t, "empty request", want, got)
	cases := []struct {
		c    protocol.Constraint
		want *schedulerpb.SamplingParams
	}{
		{protocol.Constraint{Kind: protocol.JSONObject}, &schedulerpb.SamplingParams{N: 1, Constraint: &schedulerpb.SamplingParams_JsonSchema{JsonSchema: `{"type":"object"}`}}},
		{protocol.Constraint{Kind: protocol.Regex, Value: "a+"}, &schedulerpb.SamplingParams{N: 1, Constraint: &schedulerpb.SamplingParams_Regex{Regex: "a+"}}},
		{protocol.Constraint{Kind: protocol.Grammar, Value: "root ::= x"}, &schedulerpb.SamplingParams{N: 1, Constraint: &schedulerpb.SamplingParams_EbnfGrammar{EbnfGrammar: "root ::= x"}}},
	}
	for _, c := range cases {
		got, err := Encode(&protocol.Request{ID: "r", Sampling: protocol.Sampling{Constraint: c.c}})
		if err != nil {
			t.Fatal(err)
		}
		sameMessage(t, c.c.Kind.String(), c.want, got.GetSamplingParams())
	}
}

func TestEncodeRefusals(t *testing.T) {
	item := func(mod func(*protocol.MediaItem)) *protocol.Request {
		r := fullRequest()
		mod(&r.Media[1])
		return r
	}
	cases := []struct {
		name string
		req  *protocol.Request
		want error
	}{
		{"choice constraint", &protocol.Request{ID: "r", Sampling: protocol.Sampling{Constraint: protocol.Constraint{Kind: protocol.Choice, Choices: []string{"a"}}}}, protocol.ErrUnsupportedParam},
		{"negative range", item(func(it *protocol.MediaItem) { it.Placeholders[0].Offset = -1 }), protocol.ErrBadRequest},
		{"no modality", item(func(it *protocol.MediaItem) { it.Modality = 0 }), protocol.ErrBadRequest},
		{"repeated side tensor", item(func(it *protocol.MediaItem) { it.Side[1].Name = "video_grid_thw" }), protocol.ErrBadRequest},
		{"negative dimension", item(func(it *protocol.MediaItem) { it.Input.Shape = []int{-1} }), protocol.ErrBadRequest},
	}
	for _, c := range cases {
		if _, err := Encode(c.req); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
