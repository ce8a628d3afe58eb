package imageprep

import (
	"context"

	"github.com/mmgate/mmgate/media"
)

// MediaDecoder adapts a *media.Decoder (Pillow-equivalent decoding, EXIF
// orientation, transparency compositing) to Decoder.
func MediaDecoder(d *media.Decoder) Decoder { return mediaDecoder{d} }

type mediaDecoder struct{ d *media.Decoder }

func (m mediaDecoder) DecodeRGB(ctx context.Context, data []byte) (Decoded, error) {
	img, release, err := m.d.DecodeScratch(ctx, data)
	if err != nil {
		return Decoded{}, err
	}
	return Decoded{RGB: img.RGB, Format: img.Format, Exact: img.Exact, Release: release}, nil
}

// ProbeSize implements Prober with media's header probe (which also
// enforces the decoder's pixel cap).
func (m mediaDecoder) ProbeSize(data []byte) (int, int, error) {
	h, err := m.d.Probe(data)
	if err != nil {
		return 0, 0, err
	}
	return h.Width, h.Height, nil
}
