package protocol

import (
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

func TestCapabilitiesTakes(t *testing.T) {
	iv := []vision.Modality{vision.Image, vision.Video}
	one := Capabilities{Modalities: iv, DTypes: []tensor.DType{tensor.Float32}}
	mix := one
	mix.MixModalities = true
	cases := []struct {
		c    Capabilities
		need []vision.Modality
		want bool
	}{
		{one, nil, true},
		{one, []vision.Modality{vision.Video}, true},
		{one, iv, false}, // two modalities, one per request
		{mix, iv, true},
		{mix, []vision.Modality{vision.Audio}, false},
		{Capabilities{}, []vision.Modality{vision.Image}, false},
	}
	for i, c := range cases {
		if got := c.c.Takes(c.need); got != c.want {
			t.Errorf("case %d: Takes(%v) = %v", i, c.need, got)
		}
	}
	if !one.AcceptsDType(tensor.Float32) || one.AcceptsDType(tensor.BFloat16) {
		t.Error("AcceptsDType")
	}
	if (&Request{}).Choices() != 1 || (&Request{Sampling: Sampling{N: 3}}).Choices() != 3 {
		t.Error("Choices")
	}
}
