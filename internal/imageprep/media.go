package imageprep

import (
	"context"

	"github.com/mmgate/mmgate/media"
)

// MediaDecoder adapts a *media.Decoder (Pillow-equivalent decoding, EXIF
// orientation, transparency compositing) to Decoder. Pixels live on the Go
// heap: right for a short-lived process, whose heap still has the free,
// already-resident pages that a decode can reuse.
func MediaDecoder(d *media.Decoder) Decoder { return mediaDecoder{d: d} }

// ScratchDecoder is MediaDecoder for a server with a stream of images: JPEGs
// decode into the decoder's scratch memory (media.Decoder.DecodeScratch),
// reused from one image to the next outside the Go heap, and given back once
// each image is processed (Decoded.Release).
func ScratchDecoder(d *media.Decoder) Decoder { return mediaDecoder{d: d, scratch: true} }

type mediaDecoder struct {
	d       *media.Decoder
	scratch bool
}

func (m mediaDecoder) DecodeRGB(ctx context.Context, data []byte) (Decoded, error) {
	if !m.scratch {
		img, err := m.d.Decode(ctx, data)
		if err != nil {
			return Decoded{}, err
		}
		return Decoded{RGB: img.RGB, Format: img.Format, Exact: img.Exact}, nil
	}
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
