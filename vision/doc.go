// Package vision defines what the gateway needs from a model's media
// preprocessor, independently of any one model family.
//
// Planning is pure arithmetic on sizes: given an image's post-EXIF width and
// height, a Processor reports the resized size, the patch grid, the number of
// placeholder tokens and the pixel_values shape, without touching pixels. The
// prompt builder uses plans to expand placeholders and to size destination
// buffers (an shm segment or an inline slice) before any decoding happens.
//
// Processing then fills such a buffer from decoded pixels: resize to the
// planned size, normalize, patchify, encode in the requested dtype.
//
// Processors are looked up by the model_type of a model's config.json through
// a Registry value built by the program (there is no package-level
// registration). A Registry is immutable after construction and safe for
// concurrent use; implementations of Processor must be safe for concurrent
// use as well.
package vision
