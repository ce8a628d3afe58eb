package qwenvl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	vqwen "github.com/mmgate/mmgate/vision/qwenvl"
)

// Tensor names, as the Hugging Face processors and vLLM name them.
const (
	imageGrid       = "image_grid_thw"
	videoGrid       = "video_grid_thw"
	secondPerGridTS = "second_per_grid_ts"
)

// layout is vLLM's field configuration of the Qwen-VL models: pixels flat
// by patch rows, grids batched and kept on the CPU; Qwen2.5-VL adds
// second_per_grid_ts per video.
func layout(modelType string, m vision.Modality) family.Layout {
	switch m {
	case vision.Image:
		return family.Layout{Primary: "pixel_values", Sizes: "patches_per_image",
			Batched: []string{imageGrid, "patches_per_image"}, KeepOnCPU: []string{imageGrid}}
	case vision.Video:
		l := family.Layout{Primary: "pixel_values_videos", Sizes: "patches_per_video",
			Batched: []string{videoGrid, "patches_per_video"}, KeepOnCPU: []string{videoGrid}}
		if modelType == vqwen.ModelQwen25VL {
			l.Batched = append(l.Batched, secondPerGridTS)
		}
		return l
	}
	return family.Layout{}
}

// SideTensors implements family.Model: the item's grid, and a Qwen2.5-VL
// video's second_per_grid_ts.
func (m *model) SideTensors(it family.Item) []family.NamedTensor {
	if v := it.Video; v != nil {
		out := []family.NamedTensor{family.GridTensor(videoGrid, it.Plan.GridTHW())}
		if ts := v.SecondPerGridTS; ts > 0 {
			out = append(out, family.Float32Tensor(secondPerGridTS, float32(ts)))
		}
		return out
	}
	return []family.NamedTensor{family.GridTensor(imageGrid, it.Plan.GridTHW())}
}

// CheckReceived implements family.Model as the Qwen-VL worker checks an
// item: exactly the grid of its modality, pixels [t·h·w, cols] and
// t·h·w/merge² placeholder tokens.
func (m *model) CheckReceived(r family.Received) (family.Summary, error) {
	var s family.Summary
	key, other := imageGrid, videoGrid
	if r.Modality == vision.Video {
		key, other = videoGrid, imageGrid
	}
	if _, bad := r.SideTensor(other); bad {
		return s, fmt.Errorf("a %v item must not carry %s", r.Modality, other)
	}
	gt, ok := r.SideTensor(key)
	if !ok {
		return s, fmt.Errorf("missing %s", key)
	}
	grid, err := family.ReadGrid(gt.Tensor)
	if err != nil {
		return s, fmt.Errorf("%s: %v", key, err)
	}
	s.Head = fmt.Sprintf("grid %dx%dx%d", grid[0], grid[1], grid[2])
	if ts, ok := r.SideTensor(secondPerGridTS); ok {
		vals, err := family.ReadFloat32s(ts.Tensor)
		if err != nil {
			return s, fmt.Errorf("%s %v", secondPerGridTS, err)
		}
		if len(vals) > 0 {
			s.Notes = append(s.Notes, secondPerGridTS+" "+joinFloats(vals))
		}
	}
	return s, m.checkPixels(r.Primary, grid, r.Tokens)
}

// checkPixels checks the pixels' shape against the grid, and the
// placeholder tokens against the vision tower's merge.
func (m *model) checkPixels(p tensor.Tensor, grid [3]int64, tokens int) error {
	if len(p.Shape) != 2 {
		return fmt.Errorf("encoder_input shape %v is not [rows, cols]", p.Shape)
	}
	rows := grid[0] * grid[1] * grid[2]
	if int64(p.Shape[0]) != rows {
		return fmt.Errorf("encoder_input has %d rows, grid %dx%dx%d needs %d", p.Shape[0], grid[0], grid[1], grid[2], rows)
	}
	m2 := int64(m.visionMerge * m.visionMerge)
	if rows%m2 != 0 || int64(tokens) != rows/m2 {
		return fmt.Errorf("%d placeholder tokens, grid %dx%dx%d needs %d", tokens, grid[0], grid[1], grid[2], rows/m2)
	}
	return nil
}

func joinFloats(v []float32) string {
	parts := make([]string, len(v))
	for k, x := range v {
		parts[k] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return strings.Join(parts, ",")
}
