package sglang

import (
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/engine/internal/goldenreq"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/proto/prototest"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

func TestInfoGolden(t *testing.T) {
	mi := prototest.Load(t, "sglang_model_info.binpb", nil, func() *sglangpb.GetModelInfoResponse { return &sglangpb.GetModelInfoResponse{} })[0]
	si := prototest.Load(t, "sglang_server_info.binpb", nil, func() *sglangpb.GetServerInfoResponse { return &sglangpb.GetServerInfoResponse{} })[0]
	got := InfoOf(mi, si)
	want := &protocol.Info{
		ServedName: "qwen2.5-vl", ModelType: "qwen2_5_vl", Architectures: []string{"Qwen2_5_VLForConditionalGeneration"},
		ContextLength: 128000, EOS: []uint32{151645, 151643}, Modalities: []vision.Modality{vision.Image},
		Defaults: protocol.SamplingDefaults{Temperature: goldenreq.Ptr[float32](0.1), TopP: goldenreq.Ptr[float32](0.001), TopK: goldenreq.Ptr[int32](1), RepetitionPenalty: goldenreq.Ptr[float32](1.05)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("info\n got %+v\nwant %+v", got, want)
	}
	c := Protocol{}.Capabilities()
	if !c.AcceptsDType(tensor.Float32) || c.AcceptsDType(tensor.BFloat16) || c.Shm || c.Layout != protocol.LayoutFlat || c.MixModalities || !c.RawMedia || (Protocol{}).Name() != "sglang" {
		t.Errorf("capabilities %+v", c)
	}
}
