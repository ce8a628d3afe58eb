// Package vision defines what the gateway needs from a model's media
// preprocessor, independently of any one model family.
//
// Planning is pure arithmetic on sizes: given an image's post-EXIF width and
// height, a Processor reports the resized size, the token count and the
// pixel_values shape (a patch grid for Qwen-style families, image planes for
// the others), without touching pixels. The prompt builder uses plans to
// expand placeholders and to size destination buffers (an shm segment or an
// inline slice) before any decoding happens.
//
// Processing then fills such a buffer from decoded pixels: resize to the
// planned size, normalize, patchify or lay out planes, encode in the
// requested dtype.
//
// Each family's processors live in a package of their own (vision/qwenvl,
// …); a program reaches them through the model family that owns them
// (package family), never by naming the processor package. Implementations
// of Processor and VideoProcessor must be safe for concurrent use.
package vision
