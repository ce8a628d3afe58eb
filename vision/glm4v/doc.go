// Package glm4v is the image and video preprocessor of GLM-4.1V and GLM-4.5V
// (model types glm4v and glm4v_moe: Glm4vProcessor with
// Glm4vImageProcessor and Glm4vVideoProcessor).
//
// Exactness target for images: pixel_values, image_grid_thw and the prompt
// expansion of transformers v5's Glm4vImageProcessorPil (Pillow + NumPy),
// bit for bit:
//
//   - smart_resize (SmartResize) with num_frames = temporal_patch_size: a
//     side under factor (patch·merge, 28) first scales both sides by
//     max(factor/h, factor/w), truncated; a ratio over 200 is refused; the
//     sides round half to even to multiples of factor; the bounds
//     size.shortest_edge / size.longest_edge apply to t̄·h̄·w̄ with t̄ the
//     frame count rounded to the temporal factor, and beta uses t·h·w.
//   - Pillow resize (bicubic) to the result, then the Qwen2-VL arithmetic:
//     uint8 × rescale_factor in float64 cast to float32, (x − mean) / std in
//     float32, the frame repeated to temporal_patch_size and patchified to
//     [gh·gw, 3·t·p·p]; image_grid_thw [1, gh, gw]; gh·gw/merge² tokens.
//     Those stages are exactly Qwen2-VL's, so this package runs them through
//     package vision/qwenvl (its exported Processor, configured with GLM's
//     values), planning the sizes itself.
//
// Videos: frames are sampled as Glm4vVideoProcessor.sample_frames does
// (SampleFrames: duration = frames/fps, two frames a second up to 300 s,
// else a float64 linspace over 600 samples; indices ceil'd and clamped,
// duplicates dropped, an odd count padded with the last index), sized with
// SmartResize over the sampled count and the video processor's bounds, and
// the prompt labels each temporal group with int(index/fps) of its first
// frame, as Glm4vProcessor does. As for every video in this project
// (docs/preprocessing.md, "The reference"), each frame is resized with the
// same Pillow-exact bicubic as images, where upstream uses torchvision;
// sampling, sizes, grid, timestamps and token counts match upstream
// exactly.
//
// Prompts (Prompt, ImagePrompt, VideoPrompt) are data: the replacement
// for the chat template's per-item anchor with each pad run written once,
// and the run lengths. Inside a video, Glm4vProcessor (and SGLang) repeat
// the image token <|image|>, while vLLM's GLM-4.1V processor writes the
// video token <|video|> there (its engine marks video embeddings by that
// id); Options.VideoFramePad chooses.
//
// Per-request min_pixels / max_pixels stand for size.shortest_edge /
// size.longest_edge (the bounds on t̄·h̄·w̄). Upstream has no such
// keywords for GLM and ignores them; the gateway applies them as the
// nearest setting the processor has.
//
// Beyond the reference, plans whose resized frames exceed
// Options.PixelLimit, or that sample more than qwenvl.MaxVideoFrames
// frames, are refused with vision.ErrTooLarge.
//
// A *Processor is immutable after New/Load and safe for concurrent use.
package glm4v
