// Package planar writes images as the channels-first, normalized
// pixel_values planes of the Hugging Face image processors that keep image
// planes (CLIP / LLaVA, LLaVA-NeXT, Gemma 3, InternVL's tiles), and resolves
// the preprocessor_config.json fields those processors share.
//
// Exactness: the value written for channel c of a uint8 sample v is the
// slow-path rescale + normalize of package norm, looked up in its 3×256
// table for the output dtype (float32, or bfloat16 / float16 rounded to
// nearest even).
//
// A View is the W×H window of an RGB image whose top-left corner sits at
// (X, Y) in the image's coordinates. Samples outside the image are 0 before
// normalization: that is how transformers' center_crop pads a too-small image
// and how LLaVA-NeXT pads its resized image (both in uint8, before rescale).
// Write lays views out one after another, each as [3][H][W] little-endian
// elements, exactly the C-order bytes of the stacked NumPy array.
//
// An Engine and View values are immutable once built and safe for
// concurrent use. Write splits the output rows of all views into contiguous
// bands over Options.Workers goroutines; the bytes do not depend on the
// split.
package planar
