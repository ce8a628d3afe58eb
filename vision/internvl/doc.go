// Package internvl is the image preprocessor of InternVL3 and InternVL3.5 in
// their Hugging Face–native form (model type internvl,
// InternVLForConditionalGeneration): InternVLProcessor driving the GOT-OCR2
// image processor with dynamic tiling.
//
// Exactness target: pixel_values, num_patches and the prompt expansion of
// transformers v5's GotOcr2ImageProcessorPil (the Pillow + NumPy backend)
// called the way InternVLProcessor calls it, bit for bit:
//
//   - crop_to_patches is on whatever preprocessor_config.json says: the
//     processor passes it as its own default, and the checkpoints' files say
//     false.
//   - Grid (get_optimal_tiled_canvas): candidates (cols, rows) with
//     min_patches ≤ cols·rows ≤ max_patches, listed cols-outer, rows-inner
//     and stably sorted by cols·rows; the one whose cols/rows is closest to
//     width/height (float64) wins, and a later candidate with the same
//     distance wins when width·height > 0.5·tileH·tileW·cols·rows. No
//     candidate leaves the grid at (1, 1).
//   - One Pillow resize (package imaging/resample, bicubic by default) to
//     (tileW·cols)×(tileH·rows), cut into tiles in row-major order; when
//     there is more than one tile a tileW×tileH resize of the whole image
//     (the thumbnail) is appended last. max_patches ≤ 1 turns tiling off:
//     one resize to the tile size (none when do_resize is false).
//   - Each tile: uint8 × rescale_factor in float64 cast to float32, then
//     (x − f32(mean)) / f32(std) in float32, channels first: the 3×256
//     table of package norm, written by package planar (float32, and
//     bfloat16 / float16 rounded to nearest even).
//   - pixel_values is [num_patches, 3, tileH, tileW]; the image's
//     <IMG_CONTEXT> expands to <img> + image_seq_length·num_patches
//     <IMG_CONTEXT> + </img>, num_patches counting the thumbnail.
//
// The v4 slow class does the same arithmetic except that it reads an RGB
// image 1 or 3 pixels tall as channels-first and fails; this package follows
// v5. Beyond the reference, a plan whose main resize exceeds
// Options.PixelLimit is refused with vision.ErrTooLarge.
//
// A *Processor is immutable after New/Load and safe for concurrent use.
// ProcessImage normalizes the tiles and the thumbnail in bands of rows on up
// to Options.Workers goroutines; the output does not depend on the worker
// count.
package internvl
