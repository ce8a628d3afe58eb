package tokenspeed

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mmgate/mmgate/engine/protocol"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

func TestInfoOf(t *testing.T) {
	mi := &schedulerpb.GetModelInfoResponse{
		ServedModelName: "qwen3-vl", ModelType: "qwen3_vl", Architectures: []string{"Qwen3VLForConditionalGeneration"},
		MaxContextLength: 262144, EosTokenIds: []int32{151645, -1, 151643},
		SupportedModalities:    []commonpb.Modality{commonpb.Modality_VIDEO, commonpb.Modality_IMAGE, commonpb.Modality_VIDEO, commonpb.Modality_MODALITY_UNSPECIFIED},
		MultimodalEncoderDtype: "bfloat16",
	}
	sched, err := structpb.NewStruct(map[string]any{"shm_namespace_id": "boot:42", "shm_keep_after_read": true, "worker": "mmgate-reference"})
	if err != nil {
		t.Fatal(err)
	}
	got := InfoOf(mi, &schedulerpb.GetServerInfoResponse{SchedulerInfo: sched})
	want := &protocol.Info{
		ServedName: "qwen3-vl", ModelType: "qwen3_vl", Architectures: []string{"Qwen3VLForConditionalGeneration"},
		ContextLength: 262144, EOS: []uint32{151645, 151643},
		Modalities:   []vision.Modality{vision.Video, vision.Image},
		EncoderDType: tensor.BFloat16, NamespaceID: "boot:42", KeepAfterRead: true, Software: "mmgate-reference",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("info\n got %+v\nwant %+v", got, want)
	}

	// No server info; a vision model listing no modalities takes images
	// and videos; a dtype that is not a tensor dtype is unknown.
	got = InfoOf(&schedulerpb.GetModelInfoResponse{ServedModelName: "m", SupportsVision: true, MultimodalEncoderDtype: "auto"}, nil)
	if !reflect.DeepEqual(got.Modalities, []vision.Modality{vision.Image, vision.Video}) || got.EncoderDType != 0 || got.NamespaceID != "" || got.KeepAfterRead {
		t.Errorf("minimal info %+v", got)
	}
	if got := InfoOf(&schedulerpb.GetModelInfoResponse{ServedModelName: "text"}, nil); len(got.Modalities) != 0 {
		t.Errorf("text model takes %v", got.Modalities)
	}
}

func TestCapabilities(t *testing.T) {
	c := Protocol{}.Capabilities()
	for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16} {
		if !c.AcceptsDType(dt) {
			t.Errorf("%v refused", dt)
		}
	}
	if c.AcceptsDType(tensor.Int64) || !c.Shm || c.Layout != protocol.LayoutPerItem || !c.MixModalities || c.RawMedia || (Protocol{}).Name() != "tokenspeed" {
		t.Errorf("capabilities %+v", c)
	}
}
