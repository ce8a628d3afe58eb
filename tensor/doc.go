// Package tensor describes dense tensors as mmgate moves them: a dtype, a
// shape and little-endian, C-order (row-major) bytes in memory the caller owns
// (a Go slice, or a mapped shared-memory segment).
//
// Conversions from float32 match PyTorch's tensor.to(dtype) on CPU:
//   - bfloat16: round to nearest, ties to even; any NaN becomes 0x7FC0 (as
//     c10::BFloat16 does); values past the largest finite bfloat16 become ±Inf.
//   - float16: round to nearest, ties to even, with subnormals; a NaN stays a
//     NaN (quiet, sign kept: 0x7E00 | sign); values ≥ 65520 in magnitude become
//     ±Inf.
//
// Everything in this package is safe for concurrent use; Tensor values are
// plain data and share the caller's memory.
package tensor
