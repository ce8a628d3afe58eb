package planar

import (
	"testing"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/norm"
)

func TestRawConfigResolve(t *testing.T) {
	d := Defaults{Mean: clipMean, Std: clipStd, Resample: resample.Bicubic}
	var r RawConfig
	if err := hfconfig.DecodeStrict([]byte(`{"image_mean": 0.5, "image_std": [0.25], "resample": 2, "do_rescale": false}`), &r); err != nil {
		t.Fatal(err)
	}
	p, err := r.Norm(d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mean != half || p.Std != [3]float64{0.25, 0.25, 0.25} || p.DoRescale || !p.DoNormalize || p.Rescale != norm.DefaultRescale {
		t.Errorf("norm %+v", p)
	}
	if f, err := r.Filter(d); err != nil || f != resample.Bilinear {
		t.Errorf("filter %v, %v", f, err)
	}
	var empty RawConfig
	if p, err := empty.Norm(d); err != nil || p.Mean != clipMean || p.Std != clipStd || !p.DoRescale {
		t.Errorf("defaults: %+v, %v", p, err)
	}
	if f, err := empty.Filter(d); err != nil || f != resample.Bicubic {
		t.Errorf("default filter %v, %v", f, err)
	}
	for _, bad := range []string{`{"resample": 9}`, `{"image_std": [1, 2]}`, `{"image_std": 0}`, `{"rescale_factor": 0}`, `{"image_mean": "x"}`} {
		var r RawConfig
		if err := hfconfig.DecodeStrict([]byte(bad), &r); err != nil {
			t.Fatal(err)
		}
		_, e1 := r.Norm(d)
		_, e2 := r.Filter(d)
		if e1 == nil && e2 == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if err := hfconfig.DecodeStrict([]byte(`{} {}`), &r); err == nil {
		t.Error("trailing data accepted")
	}
}
