// Package npy writes tensors as NumPy .npy files (format version 1.0), so
// that a tensor mmgate produced can be loaded with numpy.load and compared
// with a Python reference.
//
// The data is written as given: little-endian, C order (row-major), the
// layout package tensor describes. The header is laid out as numpy.save
// writes it — the dict {'descr': …, 'fortran_order': False, 'shape': (…), },
// padded with spaces and a newline so that the data starts at a multiple of
// 64 bytes. NumPy has no bfloat16 dtype, so bfloat16 tensors are stored as
// their raw bits, '<u2'; float32 is '<f4' and float16 '<f2'.
//
// Everything in this package is safe for concurrent use.
package npy
