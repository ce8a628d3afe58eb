package glm4v

import (
	"fmt"
	"math"

	"github.com/mmgate/mmgate/vision"
)

// maxSampleSteps bounds the candidate indices SampleFrames walks (a huge
// requested fps would otherwise loop over billions of repeats).
const maxSampleSteps = 1 << 20

// SampleFrames is Glm4vVideoProcessor.sample_frames for a stream of total
// frames at srcFPS, sampled at fps frames a second. With duration =
// total/srcFPS (what the video loaders report): up to MaxDuration seconds,
// n = ⌊duration·fps⌋ and index i is min(total−1, ⌈i·srcFPS/fps⌉); longer
// videos take n = ⌊MaxDuration·fps⌋ instants of NumPy's float64
// linspace(0, duration, n), each ⌈t·srcFPS⌉ clamped the same way (all
// frames when n ≥ total). Repeats are dropped keeping the first, and an odd
// count gets the last index again. The result is empty when n is 0.
func SampleFrames(total int, srcFPS, fps float64) ([]int, error) {
	if total < 1 {
		return nil, fmt.Errorf("glm4v: sample frames: %d frames: %w", total, vision.ErrTooSmall)
	}
	if !(srcFPS > 0) || math.IsInf(srcFPS, 0) {
		return nil, fmt.Errorf("glm4v: sample frames: the video has no frame rate (%v): %w", srcFPS, vision.ErrUnsupported)
	}
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("glm4v: sample frames: fps %v: %w", fps, vision.ErrBadOptions)
	}
	last := total - 1
	duration := float64(total) / srcFPS
	var idx []int
	add := func(i int) {
		i = min(i, last)
		if len(idx) == 0 || idx[len(idx)-1] != i { // the sequence never decreases
			idx = append(idx, i)
		}
	}
	if duration <= MaxDuration {
		n := math.Floor(duration * fps)
		if n > maxSampleSteps {
			return nil, fmt.Errorf("glm4v: sample frames: %v fps over %v s: %w", fps, duration, vision.ErrTooLarge)
		}
		for i := range int(n) {
			add(int(math.Ceil(float64(float64(i)*srcFPS) / fps)))
		}
	} else {
		n := math.Trunc(MaxDuration * fps)
		if min(n, float64(total)) > maxSampleSteps {
			return nil, fmt.Errorf("glm4v: sample frames: %v samples of %d frames: %w", n, total, vision.ErrTooLarge)
		}
		switch {
		case n >= float64(total):
			for i := range total {
				add(i)
			}
		case n == 1:
			add(0)
		case n > 1:
			step := duration / (n - 1)
			for k := range int(n) - 1 {
				add(int(math.Ceil(float64(float64(k)*step) * srcFPS)))
			}
			add(int(math.Ceil(duration * srcFPS)))
		}
	}
	if len(idx)%2 == 1 {
		idx = append(idx, idx[len(idx)-1])
	}
	return idx, nil
}

// GroupSeconds is the whole second Glm4vProcessor writes after each temporal
// group of a video sampled at indices from a srcFPS stream: int(index/srcFPS)
// of every second sampled frame, taking groups of them, repeating the last
// (or 0) when there are fewer.
func GroupSeconds(indices []int, srcFPS float64, groups int) []int {
	out := make([]int, 0, groups)
	for i := 0; i < len(indices) && len(out) < groups; i += 2 {
		out = append(out, int(float64(indices[i])/srcFPS))
	}
	for len(out) < groups {
		pad := 0
		if len(out) > 0 {
			pad = out[len(out)-1]
		}
		out = append(out, pad)
	}
	return out
}
