package imageprep

import (
	"testing"

	"github.com/mmgate/mmgate/media"
)

// newGoldenDecoder is the decoder the golden test runs: package media with
// its defaults (white background, EXIF applied, 64 Mpx cap), decoding into
// scratch memory as the gateway does, so that every case after the first
// decodes into memory a previous one left dirty. The background cases run
// MediaDecoder (heap pixels).
func newGoldenDecoder(t testing.TB) Decoder {
	t.Helper()
	d, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ScratchDecoder(d)
}
