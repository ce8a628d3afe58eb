package qwenvl

import (
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/vision"
	vqwen "github.com/mmgate/mmgate/vision/qwenvl"
)

// layout is vLLM's field configuration of the Qwen-VL models
// (family.GridLayout); Qwen2.5-VL adds second_per_grid_ts per video.
func layout(modelType string, m vision.Modality) family.Layout {
	if modelType == vqwen.ModelQwen25VL {
		return family.GridLayout(m, family.SecondPerGridTS)
	}
	return family.GridLayout(m)
}

// SideTensors implements family.Model: the item's grid, and a Qwen2.5-VL
// video's second_per_grid_ts.
func (m *model) SideTensors(it family.Item) []family.NamedTensor { return family.GridSideTensors(it) }

// CheckReceived implements family.Model as the Qwen-VL worker checks an
// item (family.CheckGrid with the vision tower's merge).
func (m *model) CheckReceived(r family.Received) (family.Summary, error) {
	return family.CheckGrid(r, m.visionMerge)
}
