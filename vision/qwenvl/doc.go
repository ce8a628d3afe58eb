// Package qwenvl is the image preprocessor of Qwen2-VL, Qwen2.5-VL and
// Qwen3-VL (model types qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe).
//
// Exactness target: the pixel_values, image_grid_thw and placeholder counts of
// the Hugging Face "slow" image processor (Qwen2VLImageProcessor, Pillow +
// NumPy) with the transformers v5 smart_resize, bit for bit:
//
//   - smart_resize: float64 arithmetic in Python's operation order,
//     round-half-to-even, the v5 max(factor, …) clamp when shrinking, an
//     aspect ratio over 200 refused (exactly 200 accepted), no minimum size.
//   - resize: Pillow's resampling (package imaging/resample), skipped when the
//     size is unchanged.
//   - rescale + normalize: f32(f32(f32(float64(v)·rescale) − f32(mean)) /
//     f32(std)), which depends only on (channel, uint8 value) and is therefore
//     a 3×256 lookup table (package norm) computed once per processor.
//   - patchify: the closed form of the reshape/transpose, with an image padded
//     in time to temporal_patch_size identical frames; grid = [1, h/p, w/p];
//     tokens = t·h·w/merge².
//
// bfloat16 and float16 outputs are the float32 values rounded to nearest even
// (package tensor), looked up from per-dtype tables.
//
// Video planning (video.go) is provided as pure functions: Qwen3-VL frame
// sampling (Qwen3VLVideoProcessor: float64 linspace), per-frame sizes under
// the T·H·W budget and timestamp strings; Qwen2-VL / Qwen2.5-VL sampling,
// per-frame sizes and second_per_grid_ts as qwen-vl-utils 0.0.10 computes
// them (float32 linspace as ATen fills it). PlanVideo, StartVideo and
// ProcessVideo (video_process*.go) resize each sampled frame with the same
// Pillow-exact bicubic as images, normalize with the same table and write
// the temporally patchified rows straight into the caller's buffer.
//
// Beyond the reference, a plan whose resized area exceeds
// Options.PixelLimit (default 64 Mpx) is refused with vision.ErrTooLarge, so
// a per-request min_pixels cannot demand unbounded memory.
//
// A *Processor is immutable after Load/New and safe for concurrent use;
// ProcessImage fans the patchify stage out over Options.Workers goroutines
// in bands of merged patch rows, with output identical for any worker count.
package qwenvl
