package vllm

import (
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/engine/internal/goldenreq"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/proto/prototest"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

func TestInfoGolden(t *testing.T) {
	mi := prototest.Load(t, "vllm_model_info.binpb", nil, func() *vllmpb.GetModelInfoResponse { return &vllmpb.GetModelInfoResponse{} })[0]
	si := prototest.Load(t, "vllm_server_info.binpb", nil, func() *vllmpb.GetServerInfoResponse { return &vllmpb.GetServerInfoResponse{} })[0]
	got := InfoOf(mi, si)
	want := &protocol.Info{
		ServedName: "qwen2.5-vl", ModelType: "qwen2_5_vl", Architectures: []string{"Qwen2_5_VLForConditionalGeneration"},
		ContextLength: 128000, EOS: []uint32{151645}, Modalities: []vision.Modality{vision.Image, vision.Video},
		NamespaceID: "6d7f2c1e-8b4a-4f0e-9c3d-2a1b0e9f8c7d:25",
		Defaults:    protocol.SamplingDefaults{Temperature: goldenreq.Ptr[float32](0.1), TopP: goldenreq.Ptr[float32](0.001), TopK: goldenreq.Ptr[int32](1), RepetitionPenalty: goldenreq.Ptr[float32](1.05)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("info\n got %+v\nwant %+v", got, want)
	}
	if got := InfoOf(&vllmpb.GetModelInfoResponse{ServedModelName: "text"}, nil); len(got.Modalities) != 0 || got.NamespaceID != "" {
		t.Errorf("text model %+v", got)
	}
	c := Protocol{}.Capabilities()
	if !c.AcceptsDType(tensor.Float32) || c.AcceptsDType(tensor.BFloat16) || !c.Shm || c.Layout != protocol.LayoutFlat || c.MixModalities || c.RawMedia || (Protocol{}).Name() != "vllm" {
		t.Errorf("capabilities %+v", c)
	}
}
