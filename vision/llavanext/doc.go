// Package llavanext is the image preprocessor of LLaVA-NeXT (model type
// llava_next): "anyres" tiling on top of the CLIP steps of package clip.
//
// Exactness target: transformers v5's LlavaNextImageProcessorPil and
// LlavaNextProcessor's image-token count, bit for bit:
//
//   - best fit: among image_grid_pinpoints (height, width), the one whose
//     downscaled copy keeps the most pixels, min(int(w·s)·int(h·s), w·h)
//     with s = min(W/w, H/h), then the least waste H·W − that, the first
//     listed winning exact ties (select_best_resolution, float64 as Python
//     computes it).
//   - the image is resized keeping its aspect ratio to fit the pinpoint
//     (get_patch_output_size: ceil of the float64 products), zero-padded in
//     uint8 to the pinpoint (top/left the quotient, bottom/right quotient +
//     remainder) and cut into crop_size tiles row by row; the whole image
//     resized straight to (shortest_edge, shortest_edge) comes first. Every
//     view then goes through the CLIP steps (a resize to the shortest edge
//     and a center crop, no-ops for tiles of the crop size, then rescale and
//     normalize): pixel_values is [1, 1 + tiles, 3, crop, crop] and
//     image_sizes [[h, w]].
//   - tokens: with a grid of (H/tile)·(crop/patch) rows by (W/tile)·(crop/patch)
//     columns, the rows (or columns) of padding are cut using
//     int(round(x, 7)) as upstream writes it (Round7 reproduces Python's
//     decimal rounding exactly), plus one newline per row, plus the base
//     view's patches and num_additional_image_tokens, minus one for the
//     "default" strategy.
//
// Resizes use Pillow's filter through package imaging/resample. A
// *Processor is immutable after New and safe for concurrent use.
package llavanext
