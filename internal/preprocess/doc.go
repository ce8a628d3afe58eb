// Package preprocess is the engine of `mmgate preprocess`: it decodes and
// preprocesses image and video files for a model exactly as the model's
// reference processor does and writes one JSON line per input.
//
// Images go through package internal/imageprep and videos through
// internal/videoprep, so the tensors equal, bit for bit, those the
// packages' goldens pin (with the cgo decoders; a line's "exact" says when
// the image decoder was not Pillow-exact). A file is a video when its bytes
// start like a video container (MP4/MOV, Matroska/WebM, AVI); an animated
// GIF stays an image unless Options.Video.AsVideo is set. Without FFmpeg or
// video support in the model, each video input is refused with the reason
// and images still run.
//
// Inputs run in parallel (Options.Workers at a time) and their lines are
// written in input order, as soon as each line and every line before it is
// ready: a Line or VideoLine for an accepted input, an ErrorLine for a
// refused one. A model family's extra fields (Qwen-VL: grid_thw) follow
// "file", in the family's order. The optional sha256 and .npy file are not
// part of the timings.
//
// Memory stays close to the tensors in flight. A JPEG that can stream
// (imageprep.StreamingDecoder) goes from decoder to tensor a band of rows
// at a time, its rows decoded ahead in a goroutine of its own, so that
// neither the decoded nor the resized image is ever held whole — nor its
// tensor: each merged block row goes to the hash and the .npy file as soon
// as it is made, from one buffer reused for the next. The tensor of an
// image that does not stream lives in a mapping of its own (package
// internal/tensormem), handed back once the tensor has been hashed or
// written and reused by the worker's next image. For those images the Go heap
// is warmed with huge pages and large resized images hand the decoded
// image's pages back to the OS before their tensor is filled.
//
// With more inputs than workers, inputs start longest first (their cost
// planned from the headers), so that a long input does not run alone at
// the end; lines keep the input order.
//
// A Runner is safe for concurrent use, though it is meant for one run per
// process: Run warms the Go heap and forces collections, costs a
// long-running server should not pay.
package preprocess
