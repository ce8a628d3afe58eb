package sglang

import (
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	"github.com/mmgate/mmgate/vision"
)

// InfoOf maps GetModelInfo and GetServerInfo (nil when the worker does not
// implement it) to the neutral Info. Runtime, NamespaceMatch and Fetched
// are the engine's to fill. SGLang's protocol has no shared memory and
// takes images only.
func InfoOf(mi *sglangpb.GetModelInfoResponse, si *sglangpb.GetServerInfoResponse) *protocol.Info {
	info := smgwire.BaseInfo(mi, int(mi.GetMaxContextLength()))
	info.Software = si.GetSchedulerInfo().GetFields()["worker"].GetStringValue()
	if mi.GetSupportsVision() {
		info.Modalities = []vision.Modality{vision.Image}
	}
	return info
}
