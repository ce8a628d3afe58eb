// Package norm is the rescale + normalize step every Hugging Face slow
// (Pillow + NumPy) image processor shares, tabulated.
//
// Exactness: the value of channel c for a uint8 sample v is
// rescale(v) = float32(float64(v) · rescale_factor), then
// normalize(x) = (x − float32(mean[c])) / float32(std[c]) in float32
// (image_transforms.rescale / normalize; a step that is off is skipped, and
// uint8 → float32 is exact). It depends only on (c, v), so a Table holds
// the 3×256 values once per processor, as float32 bits and as bfloat16 and
// float16 rounded to nearest even (package tensor). The products are
// converted explicitly, so no fused multiply-add changes a value.
//
// A Table is immutable after New and safe for concurrent use.
package norm
