package sglang

import (
	"errors"
	"testing"

	"github.com/mmgate/mmgate/engine/internal/goldenreq"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/proto/prototest"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

var sameMessage = goldenreq.SameMessage

func goldenRequest(t *testing.T) *sglangpb.GenerateRequest {
	t.Helper()
	return prototest.Load(t, "sglang_generate_images.binpb", nil, func() *sglangpb.GenerateRequest { return &sglangpb.GenerateRequest{} })[0]
}

// imagesRequest is the neutral request behind the image golden: the two
// images preprocessed by mmgate, and the chat request's sampling
// parameters (stop "\n\n", which is one token, 271).
func imagesRequest(t *testing.T) *protocol.Request {
	t.Helper()
	golden := goldenRequest(t)
	req, _ := goldenreq.TwoImages(t, golden.GetMmInputs().GetImageData())
	req.ID, req.Stream = golden.GetRequestId(), true
	req.Sampling = protocol.Sampling{
		Temperature: goldenreq.Ptr[float32](0.7), TopP: goldenreq.Ptr[float32](0.9), TopK: goldenreq.Ptr[int32](20), RepetitionPenalty: goldenreq.Ptr[float32](1.05),
		MaxTokens: goldenreq.Ptr[uint32](16), Stop: []string{"\n\n"}, StopTokens: [][]uint32{{271}}, SkipSpecialTokens: true, N: 2,
		Logprobs: true, TopLogprobs: 2, LogitBias: map[uint32]float32{151643: -100},
		Constraint: protocol.Constraint{Kind: protocol.Regex, Value: "(Red|Green|Blue)[a-z ,.]*"},
	}
	return req
}

// TestEncodeImagesGolden compares the two-image request with the golden
// built with the upstream definitions as SMG fills it: equal in every field
// but custom_params, where the golden carries the chat request's seed and
// mmgate refuses a seed for SGLang (the servicer hands custom_params to
// custom logit processors only; TestEncodeRefusals).
func TestEncodeImagesGolden(t *testing.T) {
	want := goldenRequest(t)
	if want.GetSamplingParams().GetCustomParams().GetFields()["seed"].GetNumberValue() != 1234 {
		t.Fatal("golden: custom_params without the seed")
	}
	want.GetSamplingParams().CustomParams = nil
	req := imagesRequest(t)
	got, err := Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	sameMessage(t, "GenerateRequest", want, got)
	if pv := got.GetMmInputs().GetPixelValues().GetData(); len(pv) == 0 || &pv[0] != &req.Media[0].Input.Payload.Inline[0] {
		t.Error("pixel_values were copied")
	}
}

func TestEncodeSampling(t *testing.T) {
	got, err := Encode(&protocol.Request{ID: "r", InputIDs: []uint32{1}})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing set: every value still explicit.
	sameMessage(t, "defaults", &sglangpb.SamplingParams{Temperature: 1, TopP: 1, TopK: -1, RepetitionPenalty: 1, SpacesBetweenSpecialTokens: true, N: 1}, got.GetSamplingParams())
	if got.GetLogprobStartLen() != -1 || got.GetTokenized() == nil || got.GetMmInputs() != nil {
		t.Errorf("request %v", got)
	}
	s := protocol.Sampling{TopK: goldenreq.Ptr[int32](0), Temperature: goldenreq.Ptr[float32](0), Stop: []string{"END", "\n\n"}, StopTokens: [][]uint32{{4, 5}, {271}},
		StopTokenIDs: []uint32{271, 151645}, MinTokens: 3, IgnoreEOS: true, Constraint: protocol.Constraint{Kind: protocol.JSONObject}}
	got, err = Encode(&protocol.Request{ID: "r", Sampling: s})
	if err != nil {
		t.Fatal(err)
	}
	sameMessage(t, "explicit", &sglangpb.SamplingParams{TopK: -1, TopP: 1, RepetitionPenalty: 1, SpacesBetweenSpecialTokens: true, N: 1,
		StopTokenIds: []uint32{271, 151645}, MinNewTokens: 3, IgnoreEos: true,
		Constraint: &sglangpb.SamplingParams_JsonSchema{JsonSchema: `{"type":"object"}`}}, got.GetSamplingParams())
	got, _ = Encode(&protocol.Request{ID: "r", Sampling: protocol.Sampling{Constraint: protocol.Constraint{Kind: protocol.Grammar, Value: "g"}}})
	if got.GetSamplingParams().GetEbnfGrammar() != "g" {
		t.Error("grammar")
	}
}

func TestEncodeRefusals(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*protocol.Request)
		want error
	}{
		{"seed", func(r *protocol.Request) { r.Sampling.Seed = goldenreq.Ptr[int64](1) }, protocol.ErrUnsupportedParam},
		{"choice", func(r *protocol.Request) {
			r.Sampling.Constraint = protocol.Constraint{Kind: protocol.Choice, Choices: []string{"a"}}
		}, protocol.ErrUnsupportedParam},
		{"video", func(r *protocol.Request) {
			for i := range r.Media {
				r.Media[i].Modality = vision.Video
			}
		}, protocol.ErrUnsupportedParam},
		{"shared memory", func(r *protocol.Request) {
			r.Media = r.Media[:1]
			r.Media[0].Input.Payload = shm.Payload{Shm: &shm.Handle{Name: "mmgate-x", NBytes: uint64(len(r.Media[0].Input.Payload.Inline))}}
		}, protocol.ErrBadRequest},
		{"no raw bytes", func(r *protocol.Request) { r.Media[1].Raw = nil }, protocol.ErrBadRequest},
		{"no placeholders", func(r *protocol.Request) { r.Media[1].Placeholders = nil }, protocol.ErrBadRequest},
	}
	for _, c := range cases {
		req := imagesRequest(t)
		c.mod(req)
		if _, err := Encode(req); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
