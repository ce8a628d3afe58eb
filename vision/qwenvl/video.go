package qwenvl

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mmgate/mmgate/vision"
)

// Video planning: frame sampling, per-frame sizes and timestamps. These are
// pure functions of the stream metadata and the request; they decide token
// counts before any frame is decoded. Pixels (resize per frame, LUT,
// temporal patchify) are not part of this file.

// DefaultSourceFPS is the frame rate Qwen3VLVideoProcessor assumes when the
// metadata has none.
const DefaultSourceFPS = 24

// SampleFramesQwen3 returns the source frame indices Qwen3VLVideoProcessor
// samples from a total-frame stream at srcFPS (≤ 0 or NaN: unknown, 24 is
// used), at fps frames per second within [minFrames, maxFrames]:
// n = min(min(max(trunc(total/srcFPS·fps), minFrames), maxFrames), total),
// indices = round-half-even of NumPy's float64 linspace(0, total−1, n). The
// count is not rounded to even.
func SampleFramesQwen3(total int, srcFPS, fps float64, minFrames, maxFrames int) ([]int, error) {
	if total < 1 {
		return nil, fmt.Errorf("qwenvl: sample frames: %d frames: %w", total, vision.ErrTooSmall)
	}
	if !(fps > 0) || minFrames < 1 || maxFrames < minFrames {
		return nil, fmt.Errorf("qwenvl: sample frames: fps %v, frames [%d, %d]: %w", fps, minFrames, maxFrames, vision.ErrBadOptions)
	}
	if !(srcFPS > 0) || math.IsInf(srcFPS, 0) {
		srcFPS = DefaultSourceFPS
	}
	x := float64(total) / srcFPS * fps
	n := maxFrames
	if x < float64(maxFrames) {
		n = int(x)
	}
	n = min(max(n, minFrames), maxFrames, total)
	return linspace64(total-1, n), nil
}

// linspace64 is round-half-even of NumPy's float64 linspace(0, end, n):
// y_k = k·step with step = end/(n−1), the last element set to end.
func linspace64(end, n int) []int {
	out := make([]int, n)
	if n == 1 {
		return out
	}
	step := float64(end) / float64(n-1)
	for k := range n - 1 {
		out[k] = int(math.RoundToEven(float64(k) * step))
	}
	out[n-1] = end
	return out
}

// VideoRequestQwen25 holds the qwen-vl-utils 0.0.10 per-video request
// options. Zero fields mean "not given". NFrames and FPS exclude each other.
type VideoRequestQwen25 struct {
	NFrames   int
	FPS       float64 // default 2
	MinFrames int     // default 4
	MaxFrames int     // default min(768, total)
	MinPixels int     // default 128·28² = 100352
	MaxPixels int     // lowers the computed bound
	// TotalPixels is the budget over all frames; default 128000·28²·0.9.
	TotalPixels float64
}

// qwen-vl-utils 0.0.10 constants.
const (
	utilsFrameFactor   = 2
	utilsFPS           = 2.0
	utilsMinFrames     = 4
	utilsMaxFrames     = 768
	utilsVideoMinPx    = 128 * 28 * 28
	utilsVideoMaxPx    = 768 * 28 * 28
	utilsVideoTotalPx  = 90316800 // int(float(128000·28²·0.9))
	utilsImageMinPx    = 4 * 28 * 28
	utilsImageMaxPx    = 16384 * 28 * 28
	utilsFactor        = 28
	utilsMaxAspectRate = 200
)

func roundBy(x float64, f int) int { return int(math.RoundToEven(x/float64(f))) * f }
func ceilBy(x float64, f int) int  { return int(math.Ceil(x/float64(f))) * f }
func floorBy(x float64, f int) int { return int(math.Floor(x/float64(f))) * f }

// SampleFramesQwen25 is qwen-vl-utils 0.0.10 frame sampling (Qwen2-VL,
// Qwen2.5-VL): it returns the source indices, from torch's float32
// linspace(0, total−1, n) rounded half-even, and sample_fps = n/total·videoFPS.
// n must end up in [2, total].
func SampleFramesQwen25(total int, videoFPS float64, req VideoRequestQwen25) (indices []int, sampleFPS float64, err error) {
	if req.NFrames != 0 && req.FPS != 0 {
		return nil, 0, fmt.Errorf("qwenvl: sample frames: both nframes and fps given: %w", vision.ErrBadOptions)
	}
	if req.NFrames < 0 || req.FPS < 0 || req.MinFrames < 0 || req.MaxFrames < 0 || math.IsNaN(req.FPS) {
		return nil, 0, fmt.Errorf("qwenvl: sample frames: negative option: %w", vision.ErrBadOptions)
	}
	var n int
	if req.NFrames != 0 {
		n = roundBy(float64(req.NFrames), utilsFrameFactor)
	} else {
		if !(videoFPS > 0) || math.IsInf(videoFPS, 0) {
			return nil, 0, fmt.Errorf("qwenvl: sample frames: source fps %v: %w", videoFPS, vision.ErrBadInput)
		}
		fps := req.FPS
		if fps == 0 {
			fps = utilsFPS
		}
		minF := req.MinFrames
		if minF == 0 {
			minF = utilsMinFrames
		}
		maxF := req.MaxFrames
		if maxF == 0 {
			maxF = min(utilsMaxFrames, total)
		}
		lo := float64(ceilBy(float64(minF), utilsFrameFactor))
		hi := float64(floorBy(float64(maxF), utilsFrameFactor))
		x := float64(total) / videoFPS * fps
		n = floorBy(math.Min(math.Min(math.Max(x, lo), hi), float64(total)), utilsFrameFactor)
	}
	if n < utilsFrameFactor || n > total {
		return nil, 0, fmt.Errorf("qwenvl: sample frames: %d of %d frames: %w", n, total, vision.ErrTooSmall)
	}
	indices = linspace32(0, float32(total-1), n)
	sampleFPS = float64(n) / math.Max(float64(total), 1e-6) * videoFPS
	return indices, sampleFPS, nil
}

// linspace32 is round-half-even of torch's float32 linspace(start, end, n)
// as ATen's CPU kernel fills it: the first half counts up from start, the
// second half down from end.
func linspace32(start, end float32, n int) []int {
	out := make([]int, n)
	if n == 1 {
		out[0] = int(math.RoundToEven(float64(start)))
		return out
	}
	step := (end - start) / float32(n-1)
	half := n / 2
	for k := range n {
		var y float32
		if k < half {
			y = start + float32(step*float32(k))
		} else {
			y = end - float32(step*float32(n-1-k))
		}
		out[k] = int(math.RoundToEven(float64(y)))
	}
	return out
}

// SecondPerGridTS is Qwen2.5-VL's second_per_grid_ts for a video sampled at
// sampleFPS: temporal_patch_size / sampleFPS.
func SecondPerGridTS(temporalPatchSize int, sampleFPS float64) float64 {
	return float64(temporalPatchSize) / sampleFPS
}

// SmartResizeVideoQwen3 is the Qwen3VLVideoProcessor smart_resize: the
// per-frame (height, width) for nFrames sampled H×W frames under a T·H·W
// budget [minPixels, maxPixels]. It refuses fewer than temporalFactor
// frames and sides below factor (vision.ErrTooSmall) and an aspect ratio
// over 200 (vision.ErrAspectRatio). The budget test uses T rounded to
// temporalFactor; beta uses the unrounded T.
func SmartResizeVideoQwen3(nFrames, height, width, temporalFactor, factor int, minPixels, maxPixels float64) (h, w int, err error) {
	if factor <= 0 || temporalFactor <= 0 {
		return 0, 0, fmt.Errorf("qwenvl: video smart_resize: factor %d, temporal factor %d: %w", factor, temporalFactor, vision.ErrBadOptions)
	}
	if math.IsNaN(minPixels) || !(maxPixels > 0) {
		return 0, 0, fmt.Errorf("qwenvl: video smart_resize pixel bounds [%v, %v]: %w", minPixels, maxPixels, vision.ErrBadOptions)
	}
	if height > maxSide || width > maxSide || nFrames > maxSide {
		return 0, 0, fmt.Errorf("qwenvl: video smart_resize %d×%dx%d: %w", nFrames, width, height, vision.ErrTooLarge)
	}
	if nFrames < temporalFactor {
		return 0, 0, fmt.Errorf("qwenvl: video smart_resize: %d frames, need %d: %w", nFrames, temporalFactor, vision.ErrTooSmall)
	}
	if height < factor || width < factor {
		return 0, 0, fmt.Errorf("qwenvl: video smart_resize: %dx%d frames, sides below %d: %w", width, height, factor, vision.ErrTooSmall)
	}
	if float64(max(height, width))/float64(min(height, width)) > MaxAspectRatio {
		return 0, 0, fmt.Errorf("qwenvl: video smart_resize %dx%d: %w", width, height, vision.ErrAspectRatio)
	}
	H, W, T, F := float64(height), float64(width), float64(nFrames), float64(factor)
	h = int(math.RoundToEven(H/F)) * factor
	w = int(math.RoundToEven(W/F)) * factor
	t := int(math.RoundToEven(T/float64(temporalFactor))) * temporalFactor
	vol := float64(t * h * w)
	switch {
	case vol > maxPixels:
		beta := math.Sqrt(float64(nFrames*height*width) / maxPixels)
		h = max(factor, int(math.Floor(H/beta/F))*factor)
		w = max(factor, int(math.Floor(W/beta/F))*factor)
	case vol < minPixels:
		beta := math.Sqrt(minPixels / float64(nFrames*height*width))
		var okH, okW bool
		h, okH = side(math.Ceil(float64(H*beta)/F), factor)
		w, okW = side(math.Ceil(float64(W*beta)/F), factor)
		if !okH || !okW {
			return 0, 0, fmt.Errorf("qwenvl: video smart_resize with min_pixels %v: %w", minPixels, vision.ErrTooLarge)
		}
	}
	return h, w, nil
}

// smartResizeUtils0010 is qwen-vl-utils 0.0.10 smart_resize: like the v5
// one (docs/preprocessing.md, "smart_resize") but with
// max(factor, round(·)·factor) in the first step and no clamp when
// shrinking.
func smartResizeUtils0010(height, width, factor int, minPixels, maxPixels float64) (h, w int, err error) {
	if height <= 0 || width <= 0 {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d: %w", width, height, vision.ErrTooSmall)
	}
	if height > maxSide || width > maxSide {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d: %w", width, height, vision.ErrTooLarge)
	}
	if float64(max(height, width))/float64(min(height, width)) > utilsMaxAspectRate {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d: %w", width, height, vision.ErrAspectRatio)
	}
	H, W, F := float64(height), float64(width), float64(factor)
	h = max(factor, int(math.RoundToEven(H/F))*factor)
	w = max(factor, int(math.RoundToEven(W/F))*factor)
	area := float64(height * width)
	switch {
	case float64(h*w) > maxPixels:
		beta := math.Sqrt(area / maxPixels)
		h = int(math.Floor(H/beta/F)) * factor
		w = int(math.Floor(W/beta/F)) * factor
	case float64(h*w) < minPixels:
		beta := math.Sqrt(minPixels / area)
		var okH, okW bool
		h, okH = side(math.Ceil(float64(H*beta)/F), factor)
		w, okW = side(math.Ceil(float64(W*beta)/F), factor)
		if !okH || !okW {
			return 0, 0, fmt.Errorf("qwenvl: smart_resize with min_pixels %v: %w", minPixels, vision.ErrTooLarge)
		}
	}
	if h <= 0 || w <= 0 {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d gives %dx%d: %w", width, height, w, h, vision.ErrTooSmall)
	}
	return h, w, nil
}

// VideoFrameSizeQwen25 is the per-frame size of qwen-vl-utils 0.0.10 for n
// sampled H×W frames (Qwen2-VL, Qwen2.5-VL):
// max_px = max(min(602112, total_px/n·2), trunc(min_px·1.05)), lowered by a
// request max_pixels, then the utils smart_resize with factor 28. The HF
// video processor then applies the image smart_resize again with the image
// bounds (imgMinPixels, imgMaxPixels; 3136 / 12845056 on the Hub); Final is
// that second size, which equals First unless a request min_pixels put the
// frame below imgMinPixels (the frames are then resized twice).
func VideoFrameSizeQwen25(n, height, width int, req VideoRequestQwen25, imgMinPixels, imgMaxPixels int) (first, final [2]int, err error) {
	if n < 1 {
		return first, final, fmt.Errorf("qwenvl: video frame size: %d frames: %w", n, vision.ErrTooSmall)
	}
	if req.MinPixels < 0 || req.MaxPixels < 0 || req.TotalPixels < 0 || math.IsNaN(req.TotalPixels) {
		return first, final, fmt.Errorf("qwenvl: video frame size: negative option: %w", vision.ErrBadOptions)
	}
	minPx := float64(utilsVideoMinPx)
	if req.MinPixels > 0 {
		minPx = float64(req.MinPixels)
	}
	totalPx := float64(utilsVideoTotalPx)
	if req.TotalPixels > 0 {
		totalPx = req.TotalPixels
	}
	maxPx := math.Max(math.Min(utilsVideoMaxPx, totalPx/float64(n)*utilsFrameFactor), math.Trunc(minPx*1.05))
	if req.MaxPixels > 0 {
		maxPx = math.Min(float64(req.MaxPixels), maxPx)
	}
	h, w, err := smartResizeUtils0010(height, width, utilsFactor, minPx, maxPx)
	if err != nil {
		return first, final, err
	}
	first = [2]int{h, w}
	h2, w2, err := SmartResize(h, w, utilsFactor, float64(imgMinPixels), float64(imgMaxPixels))
	if err != nil {
		return first, final, err
	}
	return first, [2]int{h2, w2}, nil
}

// TimestampsQwen3 returns the Qwen3-VL per-group timestamp strings of a video
// whose sampled absolute source indices are idx at srcFPS (≤ 0: 24): an odd
// count is padded with the last index, ts_k = idx_k/srcFPS, group g is
// labelled (ts_2g + ts_2g+1)/2 with one decimal, rounding the exact binary
// value half to even as Python's "{:.1f}" does.
func TimestampsQwen3(idx []int, srcFPS float64) []string {
	if len(idx) == 0 {
		return []string{}
	}
	if !(srcFPS > 0) || math.IsInf(srcFPS, 0) {
		srcFPS = DefaultSourceFPS
	}
	if len(idx)%2 == 1 {
		idx = append(idx[:len(idx):len(idx)], idx[len(idx)-1])
	}
	out := make([]string, 0, len(idx)/2)
	for g := 0; g < len(idx); g += 2 {
		a, b := float64(idx[g])/srcFPS, float64(idx[g+1])/srcFPS
		out = append(out, FormatTimestamp((a+b)/2))
	}
	return out
}

// FormatTimestamp formats seconds with one decimal, like Python's "{:.1f}".
func FormatTimestamp(sec float64) string { return strconv.FormatFloat(sec, 'f', 1, 64) }
