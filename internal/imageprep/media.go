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

// StreamingDecoder is MediaDecoder for a one-shot command: files that
// can stream (media.Decoder.Rows) are read row by row (RowDecoder), so
// that the decoded image is never held whole; the others decode as
// MediaDecoder's do.
func StreamingDecoder(d *media.Decoder) Decoder { return streamingDecoder{mediaDecoder{d: d}} }

type mediaDecoder struct {
	d       *media.Decoder
	scratch bool
}

type streamingDecoder struct{ mediaDecoder }

// CanStream implements RowDecoder.
func (s streamingDecoder) CanStream(data []byte) (int, int, bool) { return s.d.CanStream(data) }

// DecodeRows implements RowDecoder.
func (s streamingDecoder) DecodeRows(data []byte) (*Rows, error) {
	r, err := s.d.Rows(data)
	if r == nil || err != nil {
		return nil, err
	}
	return &Rows{Reader: r, Width: r.Width, Height: r.Height, Format: r.Format, Exact: r.Exact, Close: r.Close}, nil
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

// DecodeCost implements Coster.
func (m mediaDecoder) DecodeCost(head []byte) int64 { return m.d.DecodeCost(head) }

// ProbeSize implements Prober with media's header probe (which also
// enforces the decoder's pixel cap).
func (m mediaDecoder) ProbeSize(data []byte) (int, int, error) {
	h, err := m.d.Probe(data)
	if err != nil {
		return 0, 0, err
	}
	return h.Width, h.Height, nil
}
