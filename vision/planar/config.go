package planar

import (
	"encoding/json"
	"fmt"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/norm"
)

// RawConfig holds the preprocessor_config.json fields the plane-keeping
// image processors share. A nil pointer (or empty RawMessage) means the
// field is absent or null, which transformers resolves to the class
// default. Family packages embed it in their own raw structs.
type RawConfig struct {
	DoResize      *bool           `json:"do_resize"`
	DoRescale     *bool           `json:"do_rescale"`
	DoNormalize   *bool           `json:"do_normalize"`
	DoCenterCrop  *bool           `json:"do_center_crop"`
	DoConvertRGB  *bool           `json:"do_convert_rgb"`
	RescaleFactor *float64        `json:"rescale_factor"`
	Resample      *float64        `json:"resample"`
	ImageMean     json.RawMessage `json:"image_mean"`
	ImageStd      json.RawMessage `json:"image_std"`
	Size          json.RawMessage `json:"size"`
	CropSize      json.RawMessage `json:"crop_size"`
}

// Defaults are an image processor class's values for absent fields.
type Defaults struct {
	Mean, Std [3]float64
	Resample  resample.Filter
}

// Norm resolves the rescale and normalize settings.
func (r *RawConfig) Norm(d Defaults) (norm.Params, error) {
	p := norm.Params{
		Rescale:     norm.DefaultRescale,
		DoRescale:   hfconfig.Bool(r.DoRescale, true),
		DoNormalize: hfconfig.Bool(r.DoNormalize, true),
	}
	if r.RescaleFactor != nil {
		p.Rescale = *r.RescaleFactor
	}
	var err error
	if p.Mean, err = hfconfig.MeanStd("image_mean", r.ImageMean, d.Mean); err != nil {
		return p, err
	}
	if p.Std, err = hfconfig.MeanStd("image_std", r.ImageStd, d.Std); err != nil {
		return p, err
	}
	if !p.Valid() {
		return p, fmt.Errorf("rescale_factor %v, image_mean %v, image_std %v: %w", p.Rescale, p.Mean, p.Std, vision.ErrBadOptions)
	}
	return p, nil
}

// Filter resolves resample (a Pillow filter code).
func (r *RawConfig) Filter(d Defaults) (resample.Filter, error) {
	code, err := hfconfig.Int("resample", r.Resample, int(d.Resample))
	if err != nil {
		return 0, err
	}
	f := resample.Filter(code)
	if f < resample.Nearest || f > resample.Hamming {
		return 0, fmt.Errorf("resample %d: %w", code, vision.ErrUnsupported)
	}
	return f, nil
}
