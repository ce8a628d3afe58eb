// Package clip is the CLIP image processor (CLIPImageProcessor), the
// preprocessor of LLaVA-1.5 (model type llava), and the per-view steps
// LLaVA-NeXT shares with it.
//
// Exactness target: transformers v5's CLIPImageProcessorPil (PilBackend
// steps) and LlavaProcessor's image-token count, bit for bit:
//
//   - resize: with size {shortest_edge: s} the short side becomes s and the
//     long side int(s·long/short) (get_resize_output_image_size: an integer
//     product divided in float64, truncated); with {height, width} that
//     size. Pillow's filter (bicubic for the published configs) on uint8
//     RGB, package imaging/resample; a same-size resize is a copy.
//   - center crop: the window starts at ((h−ch)//2, (w−cw)//2) with
//     Python's floor division; where the image is smaller than the crop the
//     window reaches outside it and those samples are 0 (center_crop's zero
//     padding, in uint8).
//   - rescale + normalize with the 3×256 table of package norm (written by package planar), channels
//     first: pixel_values is [1, 3, crop_height, crop_width].
//   - tokens: (crop_height//patch_size)·(crop_width//patch_size) +
//     num_additional_image_tokens, minus one for the "default" feature
//     strategy (576 for LLaVA-1.5); each <image> becomes that many <image>.
//
// Configuration: preprocessor_config.json over the CLIP class defaults
// (shortest edge 224, crop 224×224, bicubic, OpenAI CLIP mean/std);
// patch_size, vision_feature_select_strategy, num_additional_image_tokens
// and image_token from processor_config.json (falling back to config.json's
// vision_config.patch_size and vision_feature_select_strategy); the image
// token id from config.json's image_token_index.
//
// A resize whose area exceeds Options.PixelLimit (default 64 Mpx; reached by
// aspect ratios beyond about 570:1) is refused with vision.ErrTooLarge.
//
// A *Processor is immutable after New and safe for concurrent use.
package clip
