package tokenspeed

import (
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// InfoOf maps GetModelInfo and GetServerInfo (nil when the worker does not
// implement it) to the neutral Info. Runtime, NamespaceMatch and Fetched
// are the engine's to fill.
func InfoOf(mi *schedulerpb.GetModelInfoResponse, si *schedulerpb.GetServerInfoResponse) *protocol.Info {
	info := smgwire.BaseInfo(mi, int(mi.GetMaxContextLength()))
	info.Modalities = modalitiesOf(mi)
	if dt, err := tensor.ParseDType(mi.GetMultimodalEncoderDtype()); err == nil {
		info.EncoderDType = dt
	}
	f := si.GetSchedulerInfo().GetFields()
	info.NamespaceID = f["shm_namespace_id"].GetStringValue()
	info.KeepAfterRead = f["shm_keep_after_read"].GetBoolValue()
	info.Software = f["worker"].GetStringValue()
	return info
}

// modalitiesOf maps the wire modalities; a vision model listing none takes
// images and videos.
func modalitiesOf(mi *schedulerpb.GetModelInfoResponse) []vision.Modality {
	var out []vision.Modality
	for _, m := range mi.GetSupportedModalities() {
		if v, ok := smgwire.ModalityIn(m); ok && !protocol.HasModality(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 && (mi.GetSupportsVision() || mi.GetSupportsMultimodal()) {
		out = []vision.Modality{vision.Image, vision.Video}
	}
	return out
}
