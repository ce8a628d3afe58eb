// Package visiontest is the test kit of the image and video processors
// (vision/…): the deterministic image of the reference scripts, digests,
// decoding a corpus file as the gateway decodes it, checks that a buffer
// was written in full, the runner of the plane-keeping processors' golden
// files (vision/gemma3, vision/clip, vision/llavanext: shape, token count,
// sha256 of the pixel_values bytes, the prompt text one anchor becomes, the
// family's extras), fuzz and constructor checks, and the benchmark loop.
// It is imported by tests only.
package visiontest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/media"
)

// Synth is the test image of the reference scripts (qwenvl_numpy.synth):
// channel c of pixel (x, y) is (7x + 13y + 101c + (xy mod 31) + seed) mod 256.
func Synth(w, h, seed int) *imaging.RGB {
	img := imaging.NewRGB(w, h)
	for i := range img.Pix {
		x, y, c := i/3%w, i/3/w, i%3
		img.Pix[i] = uint8((x*7 + y*13 + c*101 + (x*y)%31 + seed) % 256)
	}
	return img
}

// SHA256 is the lower-case hex sha256 of b.
func SHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Decode reads the file rel (slash-separated, relative to the repository
// root) and decodes it with media's default decoder, as the gateway does.
// When wantErr is set the decode must fail and Decode returns nil. The test
// is skipped when the decoder is not Pillow-exact (a build without cgo);
// the decoded size must be w×h.
func Decode(t testing.TB, root, rel, wantErr string, w, h int) *imaging.RGB {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := dec.Decode(context.Background(), data)
	switch {
	case wantErr != "" && err == nil:
		t.Fatalf("%s decoded, want error %q", rel, wantErr)
	case wantErr != "":
		return nil
	case err != nil:
		t.Fatal(err)
	case !img.Exact:
		t.Skip("decoder built without cgo: pixels are not Pillow's")
	case img.RGB.Width != w || img.RGB.Height != h:
		t.Fatalf("%s decoded %dx%d, want %dx%d", rel, img.RGB.Width, img.RGB.Height, w, h)
	}
	return img.RGB
}

// Ones returns n bytes of 0xff: an element made of them is a NaN no
// normalize table produces, so it marks what was not written.
func Ones(n int) []byte { return bytes.Repeat([]byte{0xff}, n) }

// Unwritten reports whether dst, of es-byte elements, still holds an element
// made of 0xff bytes.
func Unwritten(dst []byte, es int) bool {
	for i := 0; i+es <= len(dst); i += es {
		if bytes.Count(dst[i:i+es], []byte{0xff}) == es {
			return true
		}
	}
	return false
}

// ReadJSON reads path and unmarshals it into v, failing the test on error.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
