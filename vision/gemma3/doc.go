// Package gemma3 is the image preprocessor and prompt expansion of Gemma 3
// (model type gemma3).
//
// Exactness target: transformers v5's Gemma3ImageProcessorPil and the image
// part of Gemma3Processor, bit for bit:
//
//   - pan-and-scan (when enabled): from the post-EXIF size, the number of
//     crops along the long side is floor(ratio + 0.5) limited by
//     floor(long / min_crop_size), then clamped to [2, max_num_crops], all in
//     float64 as Python computes it; nothing when the ratio is under
//     min_ratio_to_activate or a crop side (ceil(side / crops)) is under
//     min_crop_size. Crops start every ceil(side / crops) pixels; the last
//     one is what remains.
//   - every view (the whole image first, then the crops) is resized to
//     size.height × size.width with Pillow's filter (bilinear for the
//     published config) on uint8 RGB (package imaging/resample), then
//     rescaled and normalized with the 3×256 table of package norm (written by package planar),
//     channels first: pixel_values is [1 + crops, 3, height, width].
//   - prompt: one <start_of_image> becomes "\n\n<start_of_image>" +
//     image_seq_length × <image_soft_token> + "<end_of_image>\n\n", or with
//     crops "Here is the original image " + that + " and here are some crops
//     to help you see better " + that for each crop joined by spaces.
//
// Configuration follows transformers: preprocessor_config.json values over
// the class defaults (224×224, bilinear, mean and std 0.5); pan-and-scan
// values that are null take Gemma3Processor's defaults (off, min crop 256,
// at most 4 crops, ratio 1.2). That is how vLLM resolves them (the image
// processor's value first): Gemma3Processor.__call__ itself passes its
// defaults as explicit arguments, which override the image processor's own
// do_pan_and_scan, so with Hugging Face alone pan-and-scan is on only when
// a call asks for it (vLLM: mm_processor_kwargs do_pan_and_scan); to
// follow such a request, set Config.PanAndScan.Enabled.
// image_seq_length comes from processor_config.json (default 256) and the
// token texts from tokenizer_config.json.
//
// A *Processor is immutable after New and safe for concurrent use.
package gemma3
