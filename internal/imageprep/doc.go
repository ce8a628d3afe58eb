// Package imageprep turns encoded image bytes into a model's pixel_values:
// decode (Pillow-equivalent, package media) → plan (the model family's
// vision.Processor: resized size, tokens, tensor shape) → allocate the
// destination through a caller-given Allocator (a Go slice, or a
// shared-memory segment in the gateway) → resize, normalize and patchify
// (or lay out image planes) straight into it.
//
// Exactness, tested here with the Qwen-VL processor (each family's
// processor package tests its own): with the cgo decoders, the bytes
// written equal, bit for bit, the pixel_values of
// scripts/golden/reference_preprocess.py — vLLM's 2026 image loader (EXIF
// transpose, transparency composited on white, else convert("RGB"))
// followed by the Hugging Face slow Qwen2-VL image processor
// with transformers v5 smart_resize and Pillow BICUBIC resizing (including
// the Pillow ≥ 12.2 tall-image rule). Result.Exact reports false when the
// decoder that ran is not Pillow-exact (a build without cgo).
// testdata/photos/golden.json pins the expected hashes; the golden test
// tolerates no difference.
//
// Plan gives the same plan (grid, tokens, tensor shape) from the headers
// alone, so that prompts and destination buffers can be sized before any
// pixel is decoded.
//
// A Preprocessor is safe for concurrent use. It bounds how many images are
// decoded and processed at the same time (Options.Concurrency); each
// processing call may itself fan out over several goroutines (see the
// processor's own options).
package imageprep
