package qwenvl

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mmgate/mmgate/imaging"
)

// randomLayout draws a patch geometry; about one in six has a patch side
// under minSIMDPatch, which the dispatch must hand to the portable kernel.
func randomLayout(rng *rand.Rand) layout {
	p := minSIMDPatch + rng.IntN(13) // 8..20: multiples of 8 and not
	if rng.IntN(6) == 0 {
		p = 1 + rng.IntN(minSIMDPatch-1)
	}
	m := 1 + rng.IntN(3)
	return layout{p: p, m: m, tau: 1 + rng.IntN(3), gh: m * (1 + rng.IntN(4)), gw: m * (1 + rng.IntN(4))}
}

func randomTables(rng *rand.Rand) (*[3][256]uint32, *[3][256]uint16) {
	t32, t16 := new([3][256]uint32), new([3][256]uint16)
	for c := range 3 {
		for v := range 256 {
			t32[c][v] = rng.Uint32()
			t16[c][v] = uint16(rng.Uint32())
		}
	}
	return t32, t16
}

// randomImage is an image holding layout l's pixels in rows of stride bytes
// (at least 3·width), with random padding after the last row's pixels.
func randomImage(rng *rand.Rand, l layout) (pix []uint8, stride int) {
	w, h := l.gw*l.p, l.gh*l.p
	stride = 3*w + 3*rng.IntN(3)
	pix = make([]uint8, (h-1)*stride+3*w+rng.IntN(4))
	for i := range pix {
		pix[i] = uint8(rng.Uint32())
	}
	return pix, stride
}

// garbage is n random bytes: both kernels start from the same destination,
// so a byte one of them fails to write shows as a difference.
func garbage(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = uint8(rng.Uint32())
	}
	return b
}

// TestPatchifyAutoMatchesPortable: the image kernels with the vector path
// write exactly what the portable ones write, for random tables, images,
// strides, geometries and bands of block rows.
func TestPatchifyAutoMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	vector := 0
	for i := range 400 {
		l := randomLayout(rng)
		t32, t16 := randomTables(rng)
		pix, stride := randomImage(rng, l)
		nb := l.gh / l.m
		bh0 := rng.IntN(nb + 1)
		bh1 := bh0 + rng.IntN(nb-bh0+1)
		if imageSIMD(make([]byte, l.gh*l.gw*l.cols()*4), pix, stride, l, 4, bh0, bh1) {
			vector++
		} else if haveSIMD() && l.p >= minSIMDPatch {
			t.Fatalf("case %d %+v: the vector kernel was not chosen", i, l)
		}
		for _, es := range []int{4, 2} {
			n := l.gh * l.gw * l.cols() * es
			want := garbage(rng, n)
			got := bytes.Clone(want)
			if es == 4 {
				patchify32(want, pix, stride, l, t32, bh0, bh1)
				patchify32Auto(got, pix, stride, l, t32, bh0, bh1)
			} else {
				patchify16(want, pix, stride, l, t16, bh0, bh1)
				patchify16Auto(got, pix, stride, l, t16, bh0, bh1)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("case %d %+v stride %d bands [%d,%d) %d-byte: differs at byte %d", i, l, stride, bh0, bh1, es, firstDiff(got, want))
			}
		}
	}
	if haveSIMD() && vector < 200 {
		t.Fatalf("only %d cases ran the vector kernel", vector)
	}
	t.Logf("vector kernel in %d of 400 cases (available: %v)", vector, haveSIMD())
}

// TestPatchifyGroupAutoMatchesPortable: the same for the temporal groups of
// a video, frames of random widths at least the layout's.
func TestPatchifyGroupAutoMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	vector := 0
	for i := range 300 {
		l := randomLayout(rng)
		t32, t16 := randomTables(rng)
		w, h := l.gw*l.p+rng.IntN(3), l.gh*l.p+rng.IntN(3)
		frames := make([]*imaging.RGB, 1+rng.IntN(l.tau))
		for k := range frames {
			frames[k] = &imaging.RGB{Pix: garbage(rng, w*h*3), Width: w, Height: h}
		}
		if groupSIMD(make([]byte, l.gh*l.gw*l.cols()*4), frames, l, 4) {
			vector++
		} else if haveSIMD() && l.p >= minSIMDPatch {
			t.Fatalf("case %d %+v: the vector kernel was not chosen", i, l)
		}
		for _, es := range []int{4, 2} {
			n := l.gh * l.gw * l.cols() * es
			want := garbage(rng, n)
			got := bytes.Clone(want)
			if es == 4 {
				patchifyGroup32(want, frames, l, t32)
				patchifyGroup32Auto(got, frames, l, t32)
			} else {
				patchifyGroup16(want, frames, l, t16)
				patchifyGroup16Auto(got, frames, l, t16)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("case %d %+v %d frames %dx%d %d-byte: differs at byte %d", i, l, len(frames), w, h, es, firstDiff(got, want))
			}
		}
	}
	if haveSIMD() && vector < 150 {
		t.Fatalf("only %d cases ran the vector kernel", vector)
	}
}

// TestPatchifyAutoPresets: the model presets' own tables and geometries
// (patch 14 takes the overlapping last group of eight, patch 16 does not),
// on an image whose rows are longer than the grid needs, every dtype.
func TestPatchifyAutoPresets(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for _, preset := range []string{"qwen2-vl", "qwen2.5-vl", "qwen3-vl"} {
		p := loadPreset(t, preset)
		c := p.cfg
		f := c.PatchSize * c.MergeSize
		l := layout{p: c.PatchSize, m: c.MergeSize, tau: c.TemporalPatchSize, gh: 3 * c.MergeSize, gw: 5 * c.MergeSize}
		img := synthRGB(l.gw*l.p+f-1, l.gh*l.p+f-1, 7)
		stride := img.Stride()
		for _, es := range []int{4, 2} {
			t.Run(fmt.Sprintf("%s/%d", preset, es), func(t *testing.T) {
				n := l.gh * l.gw * l.cols() * es
				want := garbage(rng, n)
				got := bytes.Clone(want)
				if es == 4 {
					patchify32(want, img.Pix, stride, l, &p.norm.bits, 0, l.gh/l.m)
					patchify32Auto(got, img.Pix, stride, l, &p.norm.bits, 0, l.gh/l.m)
				} else {
					patchify16(want, img.Pix, stride, l, &p.norm.bf16, 0, l.gh/l.m)
					patchify16Auto(got, img.Pix, stride, l, &p.norm.bf16, 0, l.gh/l.m)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("differs at byte %d", firstDiff(got, want))
				}
			})
		}
	}
}

// TestPatchifyAutoFallsBack: inputs the vector kernel must not touch (an
// image or a destination too small, a frame too narrow) go to the portable
// kernel, whose bounds checks then decide.
func TestPatchifyAutoFallsBack(t *testing.T) {
	l := layout{p: 16, m: 2, tau: 2, gh: 2, gw: 2}
	pix := make([]uint8, 32*32*3)
	if haveSIMD() && !imageSIMD(make([]byte, l.gh*l.gw*l.cols()*4), pix, 32*3, l, 4, 0, 1) {
		t.Fatal("a fitting image was refused")
	}
	for name, ok := range map[string]bool{
		"short image":  imageSIMD(make([]byte, l.gh*l.gw*l.cols()*4), pix[:len(pix)-1], 32*3, l, 4, 0, 1),
		"short stride": imageSIMD(make([]byte, l.gh*l.gw*l.cols()*4), pix, 32*3-1, l, 4, 0, 1),
		"short dst":    imageSIMD(make([]byte, l.gh*l.gw*l.cols()*4-1), pix, 32*3, l, 4, 0, 1),
		"bands past":   imageSIMD(make([]byte, l.gh*l.gw*l.cols()*4), pix, 32*3, l, 4, 0, 2),
		"narrow frame": groupSIMD(make([]byte, l.gh*l.gw*l.cols()*4), []*imaging.RGB{{Pix: pix, Width: 31, Height: 32}}, l, 4),
		"nil frame":    groupSIMD(make([]byte, l.gh*l.gw*l.cols()*4), []*imaging.RGB{nil}, l, 4),
		"three frames": groupSIMD(make([]byte, l.gh*l.gw*l.cols()*4), []*imaging.RGB{{Pix: pix, Width: 32, Height: 32}, {Pix: pix, Width: 32, Height: 32}, {Pix: pix, Width: 32, Height: 32}}, l, 4),
	} {
		if ok {
			t.Errorf("%s: vector kernel chosen", name)
		}
	}
}

// BenchmarkPatchKernels compares the portable and the dispatched kernels on
// one worker: a 1280×960 image at the Qwen3-VL geometry, a 2548×1596 one at
// the Qwen2.5-VL geometry (patch 14), and one temporal group of two
// 1056×576 video frames.
func BenchmarkPatchKernels(b *testing.B) {
	for _, tc := range []struct {
		name string
		l    layout
	}{
		{"qwen3-vl/1280x960", layout{p: 16, m: 2, tau: 2, gh: 60, gw: 80}},
		{"qwen2.5-vl/2548x1596", layout{p: 14, m: 2, tau: 2, gh: 114, gw: 182}},
	} {
		img := synthRGB(tc.l.gw*tc.l.p, tc.l.gh*tc.l.p, 0)
		p := loadPreset(b, "qwen3-vl")
		dst := make([]byte, tc.l.gh*tc.l.gw*tc.l.cols()*4)
		for name, k := range map[string]func(){
			"portable": func() { patchify32(dst, img.Pix, img.Stride(), tc.l, &p.norm.bits, 0, tc.l.gh/tc.l.m) },
			"auto":     func() { patchify32Auto(dst, img.Pix, img.Stride(), tc.l, &p.norm.bits, 0, tc.l.gh/tc.l.m) },
		} {
			b.Run(tc.name+"/float32/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(dst)))
				for b.Loop() {
					k()
				}
			})
		}
	}
	l := layout{p: 16, m: 2, tau: 2, gh: 36, gw: 66}
	frames := synthFrames(2, 1056, 576)
	p := loadPreset(b, "qwen3-vl")
	dst := make([]byte, l.gh*l.gw*l.cols()*4)
	for name, k := range map[string]func(){
		"portable": func() { patchifyGroup32(dst, frames, l, &p.norm.bits) },
		"auto":     func() { patchifyGroup32Auto(dst, frames, l, &p.norm.bits) },
	} {
		b.Run("group/qwen3-vl/1056x576/float32/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(dst)))
			for b.Loop() {
				k()
			}
		})
	}
}
