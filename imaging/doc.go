// Package imaging holds the small image types shared by the decoders (package
// media), the resampler (package imaging/resample) and the model processors
// (package vision/...). It has no behaviour beyond allocation and bounds
// checks, so every other imaging package can import it without pulling in
// decoders or kernels.
//
// Values of these types are plain data: safe to read from many goroutines,
// and owned by whoever allocated them.
package imaging
