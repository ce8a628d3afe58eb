package npy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mmgate/mmgate/tensor"
)

// ErrDType is wrapped when a dtype has no .npy descr in this package.
var ErrDType = errors.New("no .npy descr for this dtype")

// ErrHeaderTooLong is wrapped when a shape needs a header longer than
// format 1.0's 16-bit header length can say.
var ErrHeaderTooLong = errors.New("header too long for format 1.0")

// magic is the file signature followed by the format version, 1.0.
const magic = "\x93NUMPY\x01\x00"

// align is the multiple of bytes the data starts at, as numpy.save pads.
const align = 64

// Descr is the NumPy dtype string .npy files store for dt.
func Descr(dt tensor.DType) (string, error) {
	switch dt {
	case tensor.Float32:
		return "<f4", nil
	case tensor.Float16:
		return "<f2", nil
	case tensor.BFloat16:
		return "<u2", nil
	}
	return "", fmt.Errorf("npy: %s: %w", dt, ErrDType)
}

// Header returns everything of an .npy file before its data: the magic,
// the version, the header length and the padded header dict.
func Header(dt tensor.DType, shape []int) ([]byte, error) {
	descr, err := Descr(dt)
	if err != nil {
		return nil, err
	}
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += "," // a one-element Python tuple
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	total := len(magic) + 2 + len(dict) + 1
	pad := (align - total%align) % align
	dict += strings.Repeat(" ", pad) + "\n"
	if len(dict) > 0xFFFF {
		return nil, fmt.Errorf("npy: shape %v: %w", shape, ErrHeaderTooLong)
	}
	h := append([]byte(magic), byte(len(dict)), byte(len(dict)>>8))
	return append(h, dict...), nil
}

// Write writes an .npy file to w: the header for dt and shape, then data,
// which must already be little-endian and in C order.
func Write(w io.Writer, dt tensor.DType, shape []int, data []byte) error {
	h, err := Header(dt, shape)
	if err != nil {
		return err
	}
	return write(w, h, data)
}

// WriteFile writes an .npy file at path (see Write), creating or
// truncating it; a dtype or shape it cannot store creates no file.
func WriteFile(path string, dt tensor.DType, shape []int, data []byte) error {
	h, err := Header(dt, shape)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w, h, data); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func write(w io.Writer, header, data []byte) error {
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}
