package vision

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
)

type fakeProc struct{ t string }

func (f fakeProc) ModelType() string { return f.t }
func (f fakeProc) PlanImage(w, h int, o Overrides) (Plan, error) {
	return Plan{SourceWidth: w, SourceHeight: h}, nil
}
func (f fakeProc) ProcessImage(context.Context, *imaging.RGB, Plan, tensor.DType, []byte) (Timings, error) {
	return Timings{}, nil
}

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(fakeProc{"qwen3_vl"}, fakeProc{"qwen2_5_vl"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.ModelTypes(), []string{"qwen2_5_vl", "qwen3_vl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ModelTypes = %v, want %v", got, want)
	}
	p, err := r.Lookup("qwen3_vl")
	if err != nil || p.ModelType() != "qwen3_vl" {
		t.Errorf("Lookup(qwen3_vl) = %v, %v", p, err)
	}
	if _, err := r.Lookup("llava"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Lookup(llava) err = %v, want ErrUnsupported", err)
	}
	if _, err := NewRegistry(fakeProc{"a"}, fakeProc{"a"}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("duplicate: err = %v, want ErrBadOptions", err)
	}
	if _, err := NewRegistry(fakeProc{""}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("empty type: err = %v, want ErrBadOptions", err)
	}
	var nilReg *Registry
	if _, err := nilReg.Lookup("x"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("nil registry: err = %v", err)
	}
	if got := nilReg.ModelTypes(); got == nil || len(got) != 0 {
		t.Errorf("nil registry ModelTypes = %#v, want empty non-nil", got)
	}
}

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
