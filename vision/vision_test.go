package vision

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
)

func TestModality(t *testing.T) {
	for _, m := range []Modality{Image, Video, Audio} {
		got, err := ParseModality(m.String())
		if err != nil || got != m {
			t.Errorf("ParseModality(%q) = %v, %v", m.String(), got, err)
		}
	}
	if Modality(0).String() != "modality(0)" {
		t.Errorf("zero modality String = %q", Modality(0).String())
	}
	if _, err := ParseModality("smell"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ParseModality(smell) err = %v", err)
	}
}

func TestPlanBytes(t *testing.T) {
	p := Plan{GridT: 1, GridH: 114, GridW: 182, Rows: 114 * 182, Cols: 1176}
	tests := []struct {
		dt   tensor.DType
		want int
	}{
		{tensor.Float32, 114 * 182 * 1176 * 4},
		{tensor.BFloat16, 114 * 182 * 1176 * 2},
		{tensor.Float16, 114 * 182 * 1176 * 2},
		{0, 0},
	}
	for _, tc := range tests {
		if got := p.Bytes(tc.dt); got != tc.want {
			t.Errorf("Bytes(%v) = %d, want %d", tc.dt, got, tc.want)
		}
	}
	if got := p.GridTHW(); got != [3]int64{1, 114, 182} {
		t.Errorf("GridTHW = %v", got)
	}
	if !reflect.DeepEqual(p.Shape(), []int{114 * 182, 1176}) {
		t.Errorf("Shape = %v", p.Shape())
	}
}

func TestOverridesValidate(t *testing.T) {
	if err := (Overrides{}).Validate(); err != nil {
		t.Error(err)
	}
	if err := (Overrides{MinPixels: -1}).Validate(); !errors.Is(err, ErrBadOptions) {
		t.Errorf("negative: %v", err)
	}
}

func TestWithDefaults(t *testing.T) {
	o, err := ProcessorOptions{}.WithDefaults()
	if err != nil || o.Workers != runtime.GOMAXPROCS(0) || o.PixelLimit != DefaultPixelLimit || o.Resizer == nil {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	o, err = ProcessorOptions{Workers: 3, PixelLimit: 7}.WithDefaults()
	if err != nil || o.Workers != 3 || o.PixelLimit != 7 {
		t.Errorf("given: %+v, %v", o, err)
	}
	for _, bad := range []ProcessorOptions{{Workers: -1}, {PixelLimit: -1}} {
		if _, err := bad.WithDefaults(); !errors.Is(err, ErrBadOptions) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestCheckProcess(t *testing.T) {
	img := imaging.NewRGB(4, 2)
	plan := Plan{SourceWidth: 4, SourceHeight: 2, NDims: 3, Dims: [MaxDims]int{3, 2, 4}}
	dst := make([]byte, plan.Bytes(tensor.Float32))
	if err := CheckProcess(img, plan, tensor.Float32, dst); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		img  *imaging.RGB
		dt   tensor.DType
		dst  []byte
		want error
	}{
		{"nil image", nil, tensor.Float32, dst, ErrBadInput},
		{"broken image", &imaging.RGB{Width: 4, Height: 2}, tensor.Float32, dst, ErrBadInput},
		{"other size", imaging.NewRGB(2, 4), tensor.Float32, dst, ErrBadInput},
		{"int dtype", img, tensor.Int64, dst, ErrUnsupported},
		{"short dst", img, tensor.Float32, dst[1:], ErrBadInput},
	} {
		if err := CheckProcess(tc.img, plan, tc.dt, tc.dst); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
