package preprocess

import (
	"context"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/vision"
)

// newImageDecoder builds the Pillow-equivalent decoder, compositing
// transparent images onto bg (nil: white). Files that can stream are
// decoded row by row into the resize and patchify, so that the decoded
// image is never held whole.
func newImageDecoder(bg *[3]uint8) (imageprep.Decoder, error) {
	d, err := media.New(media.Options{Background: bg})
	if err != nil {
		return nil, err
	}
	return imageprep.StreamingDecoder(d), nil
}

// image runs one image and returns its line. An image that streams hands
// its tensor to the hash and the .npy file a block row at a time; any
// other lives in memory mapped for it alone, unmapped before returning,
// after the hash and the file.
func (r *Runner) image(ctx context.Context, name string, data []byte, npyPath string) any {
	out := r.newOut(npyPath)
	res, err := r.images.Image(ctx, imageprep.Request{
		Data:      data,
		Overrides: vision.Overrides{MinPixels: r.o.MinPixels, MaxPixels: r.o.MaxPixels},
		DType:     r.o.DType,
		Alloc:     r.mem.Reuse, // every byte of an image's tensor is written
		Sink:      out.sink,
	})
	data = nil // the encoded file is garbage while the tensor is hashed or written
	if res != nil && res.Data != nil {
		defer r.mem.Free(res.Data)
	}
	if err != nil {
		out.discard()
		if out.err != nil {
			return refuse(name, out.err)
		}
		return refuse(name, err)
	}
	line := Line{
		File:   name,
		Extras: r.o.Model.Extras(family.ImageItem(res.Plan)),
		Tokens: res.Tokens(),
		Shape:  res.Shape(),
		DType:  res.DType.String(),
		Exact:  res.Exact,
		TimingsMS: TimingsMS{
			Decode:            ms(res.Timings.Decode),
			Resize:            ms(res.Timings.Resize),
			NormalizePatchify: ms(res.Timings.NormalizePatchify),
		},
	}
	if res.Data == nil {
		line.SHA256, err = out.finish()
	} else {
		line.SHA256, err = r.emit(npyPath, res.DType, res.Shape(), res.Data)
	}
	if err != nil {
		return refuse(name, err)
	}
	return line
}
