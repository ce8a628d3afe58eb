package main

import (
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/media"
)

// newImageDecoder builds the Pillow-equivalent decoder `mmgate preprocess`
// uses, compositing transparent images onto bg.
func newImageDecoder(bg [3]uint8) (imageprep.Decoder, error) {
	d, err := media.New(media.Options{Background: &bg})
	if err != nil {
		return nil, err
	}
	return imageprep.MediaDecoder(d), nil
}
