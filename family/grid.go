package family

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Tensor names of the patch-grid families (Qwen-VL, GLM-4V), as the Hugging
// Face processors and vLLM name them.
const (
	ImageGrid       = "image_grid_thw"
	VideoGrid       = "video_grid_thw"
	SecondPerGridTS = "second_per_grid_ts"
)

// GridLayout is vLLM's field configuration of the patch-grid models
// (Qwen-VL, GLM-4V: the Qwen2-VL field factory): pixels flat by patch rows,
// grids batched and kept on the CPU, and a video's extra batched side
// tensors (Qwen2.5-VL's second_per_grid_ts) after them.
func GridLayout(m vision.Modality, videoExtra ...string) Layout {
	switch m {
	case vision.Image:
		return Layout{Primary: "pixel_values", Sizes: "patches_per_image",
			Batched: []string{ImageGrid, "patches_per_image"}, KeepOnCPU: []string{ImageGrid}}
	case vision.Video:
		return Layout{Primary: "pixel_values_videos", Sizes: "patches_per_video",
			Batched: append([]string{VideoGrid, "patches_per_video"}, videoExtra...), KeepOnCPU: []string{VideoGrid}}
	}
	return Layout{}
}

// GridSideTensors are a patch-grid item's side tensors: its grid, and a
// video's second_per_grid_ts when its plan has one (Qwen2.5-VL).
func GridSideTensors(it Item) []NamedTensor {
	if v := it.Video; v != nil {
		out := []NamedTensor{GridTensor(VideoGrid, it.Plan.GridTHW())}
		if ts := v.SecondPerGridTS; ts > 0 {
			out = append(out, Float32Tensor(SecondPerGridTS, float32(ts)))
		}
		return out
	}
	return []NamedTensor{GridTensor(ImageGrid, it.Plan.GridTHW())}
}

// CheckGrid is the worker-side check of a patch-grid item: exactly the
// grid of its modality, pixels [t·h·w, cols] and t·h·w/merge² placeholder
// tokens; a second_per_grid_ts tensor, when present, is reported.
func CheckGrid(r Received, merge int) (Summary, error) {
	var s Summary
	key, other := ImageGrid, VideoGrid
	if r.Modality == vision.Video {
		key, other = VideoGrid, ImageGrid
	}
	if _, bad := r.SideTensor(other); bad {
		return s, fmt.Errorf("a %v item must not carry %s", r.Modality, other)
	}
	gt, ok := r.SideTensor(key)
	if !ok {
		return s, fmt.Errorf("missing %s", key)
	}
	grid, err := ReadGrid(gt.Tensor)
	if err != nil {
		return s, fmt.Errorf("%s: %v", key, err)
	}
	s.Head = fmt.Sprintf("grid %dx%dx%d", grid[0], grid[1], grid[2])
	if ts, ok := r.SideTensor(SecondPerGridTS); ok {
		vals, err := ReadFloat32s(ts.Tensor)
		if err != nil {
			return s, fmt.Errorf("%s %v", SecondPerGridTS, err)
		}
		if len(vals) > 0 {
			s.Notes = append(s.Notes, SecondPerGridTS+" "+joinFloats(vals))
		}
	}
	return s, checkGridPixels(r.Primary, grid, r.Tokens, merge)
}

// checkGridPixels checks the pixels' shape against the grid, and the
// placeholder tokens against the vision tower's merge.
func checkGridPixels(p tensor.Tensor, grid [3]int64, tokens, merge int) error {
	if len(p.Shape) != 2 {
		return fmt.Errorf("encoder_input shape %v is not [rows, cols]", p.Shape)
	}
	rows := grid[0] * grid[1] * grid[2]
	if int64(p.Shape[0]) != rows {
		return fmt.Errorf("encoder_input has %d rows, grid %dx%dx%d needs %d", p.Shape[0], grid[0], grid[1], grid[2], rows)
	}
	m2 := int64(merge * merge)
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

// GridExtras are a patch-grid item's `mmgate preprocess` fields: grid_thw.
func GridExtras(it Item) []Field {
	g := it.Plan.GridTHW()
	return []Field{{Key: "grid_thw", Value: []int64{g[0], g[1], g[2]}}}
}
