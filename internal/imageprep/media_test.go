package imageprep

import (
	"testing"

	"github.com/mmgate/mmgate/media"
)

// newGoldenDecoder is the decoder the golden test runs: package media with
// its defaults (white background, EXIF applied, 64 Mpx cap).
func newGoldenDecoder(t testing.TB) Decoder {
	t.Helper()
	d, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return MediaDecoder(d)
}
