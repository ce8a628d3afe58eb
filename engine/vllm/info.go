package vllm

import (
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
	"github.com/mmgate/mmgate/vision"
)

// InfoOf maps GetModelInfo and GetServerInfo (nil when the worker does not
// implement it) to the neutral Info. Runtime, NamespaceMatch and Fetched
// are the engine's to fill. The servicer names no encoder dtype (it casts
// float32 inputs itself) and no keep-after-read.
func InfoOf(mi *vllmpb.GetModelInfoResponse, si *vllmpb.GetServerInfoResponse) *protocol.Info {
	info := smgwire.BaseInfo(mi, int(mi.GetMaxContextLength()))
	info.NamespaceID = si.GetShmNamespaceId()
	if mi.GetSupportsVision() {
		info.Modalities = []vision.Modality{vision.Image, vision.Video}
	}
	return info
}
