package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/mmgate/mmgate/tensor"
)

// This file answers: how does `mmgate preprocess --out` store a tensor? As a
// NumPy .npy file (format 1.0): little-endian, C order; bfloat16 has no NumPy
// dtype and is stored as its raw bits, '<u2'.

func npyDescr(dt tensor.DType) (string, error) {
	switch dt {
	case tensor.Float32:
		return "<f4", nil
	case tensor.Float16:
		return "<f2", nil
	case tensor.BFloat16:
		return "<u2", nil
	}
	return "", fmt.Errorf("npy: no descr for %s", dt)
}

// npyHeader returns the magic, version, header length and the padded header
// dict, so that the data starts at a multiple of 64 bytes.
func npyHeader(dt tensor.DType, shape []int) ([]byte, error) {
	descr, err := npyDescr(dt)
	if err != nil {
		return nil, err
	}
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	dict += strings.Repeat(" ", pad) + "\n"
	if len(dict) > 0xFFFF {
		return nil, fmt.Errorf("npy: header too long")
	}
	h := []byte{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, byte(len(dict)), byte(len(dict) >> 8)}
	return append(h, dict...), nil
}

// writeNPY writes data (already little-endian) with an .npy header.
func writeNPY(path string, dt tensor.DType, shape []int, data []byte) error {
	h, err := npyHeader(dt, shape)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(h); err != nil {
		f.Close()
		return err
	}
	if _, err := w.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
