package resample

import "github.com/mmgate/mmgate/imaging"

// Deterministic test images. scripts/golden/resample_pillow.py builds the
// same images with NumPy; the two must stay in step.

type pattern string

const (
	patNoise     pattern = "noise"     // independent random samples
	patEdges     pattern = "edges"     // random blocks of 0, 255 or a random value
	patBinary    pattern = "binary"    // grey pixels that are 0 or 255
	patSynthetic pattern = "synthetic" // ramps, a checkerboard and a little noise
)

// mix is the SplitMix64 finalizer applied to (seed << 32) ^ i.
func mix(seed, i uint64) uint64 {
	z := seed<<32 ^ i
	z += 0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func patternImage(w, h int, p pattern, seed uint64) *imaging.RGB {
	m := imaging.NewRGB(w, h)
	bw, bh := 2+seed%7, 2+(seed/7)%7
	for y := range h {
		for x := range w {
			px := uint64(y*w + x)
			for c := range 3 {
				i := px*3 + uint64(c)
				var v uint64
				switch p {
				case patNoise:
					v = mix(seed, i) >> 24
				case patEdges:
					b := mix(seed, ((uint64(y)/bh)*65536+uint64(x)/bw)*3+uint64(c))
					switch b % 3 {
					case 0:
						v = 0
					case 1:
						v = 255
					default:
						v = b >> 24
					}
				case patBinary:
					v = (mix(seed, px) >> 24 & 1) * 255
				case patSynthetic:
					X, Y := uint64(x), uint64(y)
					v = X*3 + Y*2 + uint64(c)*85 + ((X>>4^Y>>4)&1)*96 + mix(seed, i)>>24&31
				}
				m.Pix[i] = uint8(v)
			}
		}
	}
	return m
}
