package vision

import (
	"errors"
	"reflect"
	"testing"

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
