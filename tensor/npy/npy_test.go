package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/tensor"
)

// headerDict is the dict numpy.load reads: descr, fortran_order and a
// shape tuple, in the order numpy.save writes the keys.
var headerDict = regexp.MustCompile(`^\{'descr': '([<>|][a-z][0-9]+)', 'fortran_order': (True|False), 'shape': \(([0-9, ]*)\), \} *\n$`)

// parseHeader reads an .npy file's header back as numpy.load does for
// format 1.0 and returns the descr, the shape and the data.
func parseHeader(t *testing.T, b []byte) (string, []int, []byte) {
	t.Helper()
	if len(b) < 10 || !bytes.Equal(b[:6], []byte("\x93NUMPY")) || b[6] != 1 || b[7] != 0 {
		t.Fatalf("not an .npy 1.0 file: % x", b[:min(len(b), 10)])
	}
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	if 10+hl > len(b) {
		t.Fatalf("header length %d past the end (%d bytes)", hl, len(b))
	}
	if (10+hl)%64 != 0 {
		t.Errorf("data starts at %d, not a multiple of 64", 10+hl)
	}
	m := headerDict.FindStringSubmatch(string(b[10 : 10+hl]))
	if m == nil {
		t.Fatalf("header dict %q", b[10:10+hl])
	}
	if m[2] != "False" {
		t.Errorf("fortran_order %s", m[2])
	}
	shape := []int{}
	if dims := strings.TrimSuffix(m[3], ","); dims != "" {
		if len(strings.Split(dims, ", ")) == 1 && !strings.HasSuffix(m[3], ",") {
			t.Errorf("one-dimensional shape (%s) is not a tuple", m[3])
		}
		for _, d := range strings.Split(dims, ", ") {
			n, err := strconv.Atoi(d)
			if err != nil {
				t.Fatalf("shape (%s): %v", m[3], err)
			}
			shape = append(shape, n)
		}
	}
	return m[1], shape, b[10+hl:]
}

func TestHeaderRoundTrip(t *testing.T) {
	for _, dt := range []struct {
		dt    tensor.DType
		descr string
	}{
		{tensor.Float32, "<f4"}, {tensor.BFloat16, "<u2"}, {tensor.Float16, "<f2"},
	} {
		for _, shape := range [][]int{{}, {7}, {16, 1176}, {2, 3, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 123456789}} {
			h, err := Header(dt.dt, shape)
			if err != nil {
				t.Fatalf("%s %v: %v", dt.dt, shape, err)
			}
			descr, got, data := parseHeader(t, h)
			if descr != dt.descr || !slices.Equal(got, shape) || len(data) != 0 {
				t.Errorf("%s %v: read back %s %v and %d data bytes", dt.dt, shape, descr, got, len(data))
			}
		}
	}
}

func TestUnsupported(t *testing.T) {
	for _, dt := range []tensor.DType{0, tensor.Int64, tensor.Uint32} {
		if _, err := Descr(dt); !errors.Is(err, ErrDType) {
			t.Errorf("%s: Descr error %v, want ErrDType", dt, err)
		}
		path := filepath.Join(t.TempDir(), "x.npy")
		if err := WriteFile(path, dt, []int{1}, make([]byte, 8)); !errors.Is(err, ErrDType) {
			t.Errorf("%s: WriteFile error %v, want ErrDType", dt, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: WriteFile created the file (%v)", dt, err)
		}
	}
	if _, err := Header(tensor.Float32, make([]int, 30000)); !errors.Is(err, ErrHeaderTooLong) {
		t.Errorf("30000 dimensions: %v, want ErrHeaderTooLong", err)
	}
}

func TestWriteFile(t *testing.T) {
	data := make([]byte, 3*5*2)
	for i := range data {
		data[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "t.npy")
	if err := WriteFile(path, tensor.BFloat16, []int{3, 5}, data); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	descr, shape, got := parseHeader(t, b)
	if descr != "<u2" || !slices.Equal(shape, []int{3, 5}) || !bytes.Equal(got, data) {
		t.Errorf("read back %s %v % x", descr, shape, got)
	}
	var w bytes.Buffer
	if err := Write(&w, tensor.BFloat16, []int{3, 5}, data); err != nil || !bytes.Equal(w.Bytes(), b) {
		t.Errorf("Write differs from WriteFile (%v)", err)
	}
}
