package qwenvl

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
	"github.com/mmgate/mmgate/vision/norm"
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

// agree runs a portable kernel and its dispatched form on copies of the same
// random n-byte destination and fails t where they differ.
func agree(t *testing.T, rng *rand.Rand, n int, what string, portable, auto func(dst []byte)) {
	t.Helper()
	want := garbage(rng, n)
	got := bytes.Clone(want)
	portable(want)
	auto(got)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: differs at byte %d", what, firstDiff(got, want))
	}
}

// forRandomCases runs check on n random layouts with random tables (seeded
// with seed); check reports whether the vector kernel took the case, which
// it must wherever it exists and the patch is wide enough. It fails t
// unless at least min cases ran the vector kernel on a CPU that has it.
func forRandomCases(t *testing.T, seed uint64, n, min int, check func(i int, rng *rand.Rand, l layout, t32 *[3][256]uint32, t16 *[3][256]uint16) bool) {
	rng := rand.New(rand.NewPCG(17, seed))
	vector := 0
	for i := range n {
		l := randomLayout(rng)
		t32, t16 := randomTables(rng)
		if check(i, rng, l, t32, t16) {
			vector++
		} else if haveSIMD() && l.p >= minSIMDPatch {
			t.Fatalf("case %d %+v: the vector kernel was not chosen", i, l)
		}
	}
	if haveSIMD() && vector < min {
		t.Fatalf("only %d of %d cases ran the vector kernel", vector, n)
	}
	t.Logf("vector kernel in %d of %d cases (available: %v)", vector, n, haveSIMD())
}

// TestPatchifyAutoMatchesPortable: the image kernels with the vector path
// write exactly what the portable ones write, for random tables, images,
// strides, geometries and bands of block rows; every other case with
// streaming stores, which a fair share of the geometries can take.
func TestPatchifyAutoMatchesPortable(t *testing.T) {
	streamed := 0
	defer func() {
		if haveSIMD() && lastLevelCache() > 0 && streamed < 40 {
			t.Errorf("only %d cases took the streaming path", streamed)
		}
	}()
	forRandomCases(t, 1, 400, 200, func(i int, rng *rand.Rand, l layout, t32 *[3][256]uint32, t16 *[3][256]uint16) bool {
		if block := 3 * l.tau * l.p * l.p * 4; i%2 == 1 && simdLayout(l) && block <= streamScratch && block%16 == 0 {
			streamed++
		}
		pix, stride := randomImage(rng, l)
		nb := l.gh / l.m
		bh0 := rng.IntN(nb + 1)
		bh1 := bh0 + rng.IntN(nb-bh0+1)
		what := fmt.Sprintf("case %d %+v stride %d bands [%d,%d)", i, l, stride, bh0, bh1)
		agree(t, rng, l.gh*l.gw*l.cols()*4, what+" float32",
			func(d []byte) { patchify32(d, pix, stride, l, t32, bh0, bh1) },
			func(d []byte) { patchify32Auto(d, pix, stride, l, t32, nil, i%2 == 1, bh0, bh1) })
		agree(t, rng, l.gh*l.gw*l.cols()*2, what+" 16-bit",
			func(d []byte) { patchify16(d, pix, stride, l, t16, bh0, bh1) },
			func(d []byte) { patchify16Auto(d, pix, stride, l, kernel16For(t16, l), i%2 == 1, bh0, bh1) })
		agree(t, rng, l.gh*l.gw*l.cols()*2, what+" 16-bit gathers",
			func(d []byte) { patchify16(d, pix, stride, l, t16, bh0, bh1) },
			func(d []byte) { patchify16Auto(d, pix, stride, l, newKernel16(t16, l.p, false), i%2 == 1, bh0, bh1) })
		return imageSIMD(make([]byte, l.gh*l.gw*l.cols()*4), pix, stride, l, 4, bh0, bh1)
	})
}

// TestPatchifyGroupAutoMatchesPortable: the same for the temporal groups of
// a video, frames of random widths at least the layout's.
func TestPatchifyGroupAutoMatchesPortable(t *testing.T) {
	forRandomCases(t, 2, 300, 150, func(i int, rng *rand.Rand, l layout, t32 *[3][256]uint32, t16 *[3][256]uint16) bool {
		w, h := l.gw*l.p+rng.IntN(3), l.gh*l.p+rng.IntN(3)
		frames := make([]*imaging.RGB, 1+rng.IntN(l.tau))
		for k := range frames {
			frames[k] = &imaging.RGB{Pix: garbage(rng, w*h*3), Width: w, Height: h}
		}
		what := fmt.Sprintf("case %d %+v %d frames %dx%d", i, l, len(frames), w, h)
		agree(t, rng, l.gh*l.gw*l.cols()*4, what+" float32",
			func(d []byte) { patchifyGroup32(d, frames, l, t32) },
			func(d []byte) { patchifyGroup32Auto(d, frames, l, t32, nil, i%2 == 1) })
		agree(t, rng, l.gh*l.gw*l.cols()*2, what+" 16-bit",
			func(d []byte) { patchifyGroup16(d, frames, l, t16) },
			func(d []byte) { patchifyGroup16Auto(d, frames, l, kernel16For(t16, l)) })
		agree(t, rng, l.gh*l.gw*l.cols()*2, what+" 16-bit gathers",
			func(d []byte) { patchifyGroup16(d, frames, l, t16) },
			func(d []byte) { patchifyGroup16Auto(d, frames, l, newKernel16(t16, l.p, false)) })
		return groupSIMD(make([]byte, l.gh*l.gw*l.cols()*4), frames, l, 4)
	})
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
		img := visiontest.Synth(l.gw*l.p+f-1, l.gh*l.p+f-1, 7)
		stride := img.Stride()
		nb := l.gh / l.m
		agree(t, rng, l.gh*l.gw*l.cols()*4, preset+" float32",
			func(d []byte) { patchify32(d, img.Pix, stride, l, p.table.Bits32(), 0, nb) },
			func(d []byte) {
				patchify32Auto(d, img.Pix, stride, l, p.table.Bits32(), affineOf(p.table), false, 0, nb)
			})
		for _, lut := range []*[3][256]uint16{p.table.Bits16(tensor.BFloat16), p.table.Bits16(tensor.Float16)} {
			agree(t, rng, l.gh*l.gw*l.cols()*2, preset+" 16-bit",
				func(d []byte) { patchify16(d, img.Pix, stride, l, lut, 0, nb) },
				func(d []byte) { patchify16Auto(d, img.Pix, stride, l, kernel16For(lut, l), false, 0, nb) })
			agree(t, rng, l.gh*l.gw*l.cols()*2, preset+" 16-bit gathers",
				func(d []byte) { patchify16(d, img.Pix, stride, l, lut, 0, nb) },
				func(d []byte) { patchify16Auto(d, img.Pix, stride, l, newKernel16(lut, l.p, false), false, 0, nb) })
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

// BenchmarkPatchKernels compares the portable and the dispatched kernels
// (for images also the table gathers the affine and the VBMI kernels
// replace) on one worker: a 1280×960 image at the Qwen3-VL geometry, a
// 2548×1596 one at the Qwen2.5-VL geometry (patch 14) in float32, the
// Qwen3-VL one and a 1288×980 one at patch 14 in bfloat16, and one
// temporal group of two 1056×576 video frames.
func BenchmarkPatchKernels(b *testing.B) {
	p := loadPreset(b, "qwen3-vl")
	for _, tc := range []struct {
		name string
		l    layout
	}{
		{"qwen3-vl/1280x960", layout{p: 16, m: 2, tau: 2, gh: 60, gw: 80}},
		{"qwen2.5-vl/2548x1596", layout{p: 14, m: 2, tau: 2, gh: 114, gw: 182}},
	} {
		img := visiontest.Synth(tc.l.gw*tc.l.p, tc.l.gh*tc.l.p, 0)
		dst := make([]byte, tc.l.gh*tc.l.gw*tc.l.cols()*4)
		lut, aff, nb := p.table.Bits32(), affineOf(p.table), tc.l.gh/tc.l.m
		benchKernels(b, tc.name+"/float32/", len(dst), map[string]func(){
			"portable": func() { patchify32(dst, img.Pix, img.Stride(), tc.l, lut, 0, nb) },
			"auto":     func() { patchify32Auto(dst, img.Pix, img.Stride(), tc.l, lut, aff, false, 0, nb) },
			"gather":   func() { patchify32Auto(dst, img.Pix, img.Stride(), tc.l, lut, nil, false, 0, nb) },
			"stream":   func() { patchify32Auto(dst, img.Pix, img.Stride(), tc.l, lut, aff, true, 0, nb) },
		})
	}
	for _, tc := range []struct {
		name string
		l    layout
	}{
		{"qwen3-vl/1280x960", layout{p: 16, m: 2, tau: 2, gh: 60, gw: 80}},
		{"qwen2.5-vl/1288x980", layout{p: 14, m: 2, tau: 2, gh: 70, gw: 92}},
	} {
		img := visiontest.Synth(tc.l.gw*tc.l.p, tc.l.gh*tc.l.p, 0)
		dst := make([]byte, tc.l.gh*tc.l.gw*tc.l.cols()*2)
		lut, nb := p.table.Bits16(tensor.BFloat16), tc.l.gh/tc.l.m
		benchKernels(b, tc.name+"/bfloat16/", len(dst), map[string]func(){
			"portable": func() { patchify16(dst, img.Pix, img.Stride(), tc.l, lut, 0, nb) },
			"auto":     func() { patchify16Auto(dst, img.Pix, img.Stride(), tc.l, kernel16For(lut, tc.l), false, 0, nb) },
			"gather": func() {
				patchify16Auto(dst, img.Pix, img.Stride(), tc.l, newKernel16(lut, tc.l.p, false), false, 0, nb)
			},
		})
	}
	l := layout{p: 16, m: 2, tau: 2, gh: 36, gw: 66}
	frames := synthFrames(2, 1056, 576)
	dst := make([]byte, l.gh*l.gw*l.cols()*4)
	benchKernels(b, "group/qwen3-vl/1056x576/float32/", len(dst), map[string]func(){
		"portable": func() { patchifyGroup32(dst, frames, l, p.table.Bits32()) },
		"auto":     func() { patchifyGroup32Auto(dst, frames, l, p.table.Bits32(), affineOf(p.table), false) },
	})
}

// benchKernels runs each kernel as the sub-benchmark prefix+name, each
// call writing n bytes.
func benchKernels(b *testing.B, prefix string, n int, kernels map[string]func()) {
	for name, k := range kernels {
		b.Run(prefix+name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				k()
			}
		})
	}
}

// TestPatchifyAffineMatchesTable: the float32 kernels that compute the
// values (affinePatch) write exactly the table's values, for random and
// real normalization parameters, on random images and on one whose every
// channel takes all 256 values.
func TestPatchifyAffineMatchesTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	clipMean, clipStd := norm.OpenAICLIP()
	params := []norm.Params{
		{Rescale: norm.DefaultRescale, Mean: clipMean, Std: clipStd, DoRescale: true, DoNormalize: true},
		{Rescale: norm.DefaultRescale, Mean: [3]float64{0.5, 0.5, 0.5}, Std: [3]float64{0.5, 0.5, 0.5}, DoRescale: true, DoNormalize: true},
		{Rescale: norm.DefaultRescale, Mean: [3]float64{0.485, 0.456, 0.406}, Std: [3]float64{0.229, 0.224, 0.225}, DoRescale: true, DoNormalize: true},
		{Rescale: 1, Mean: [3]float64{127.5, 0, -3}, Std: [3]float64{127.5, 1, 1e-3}, DoRescale: true, DoNormalize: true},
	}
	for range 200 {
		var prm norm.Params
		prm.Rescale, prm.DoRescale, prm.DoNormalize = rng.Float64()/64, true, true
		for c := range 3 {
			prm.Mean[c], prm.Std[c] = rng.Float64()*4-2, 0.01+rng.Float64()*2
		}
		params = append(params, prm)
	}
	if affineOf(norm.New(norm.Params{Rescale: norm.DefaultRescale, DoRescale: true})) != nil {
		t.Fatal("a table without normalization has affine constants")
	}
	all := layout{p: 16, m: 1, tau: 2, gh: 1, gw: 16} // 256 pixels a row
	allPix := make([]uint8, all.gh*all.p*all.gw*all.p*3)
	for i := range allPix {
		allPix[i] = uint8(i/3 + 85*(i%3)) // pixel k's channel c is k + 85c
	}
	vector := 0
	for i, prm := range params {
		tab := norm.New(prm)
		lut, aff := tab.Bits32(), affineOf(tab)
		if aff == nil {
			t.Fatalf("params %d: no affine constants", i)
		}
		l := randomLayout(rng)
		pix, stride := randomImage(rng, l)
		nb := l.gh / l.m
		what := fmt.Sprintf("params %d %+v layout %+v", i, prm, l)
		agree(t, rng, l.gh*l.gw*l.cols()*4, what,
			func(d []byte) { patchify32(d, pix, stride, l, lut, 0, nb) },
			func(d []byte) { patchify32Auto(d, pix, stride, l, lut, aff, i%2 == 1, 0, nb) })
		frames := []*imaging.RGB{{Pix: pix[:l.gw*l.p*3*l.gh*l.p], Width: l.gw * l.p, Height: l.gh * l.p}}
		if stride == l.gw*l.p*3 {
			agree(t, rng, l.gh*l.gw*l.cols()*4, what+" group",
				func(d []byte) { patchifyGroup32(d, frames, l, lut) },
				func(d []byte) { patchifyGroup32Auto(d, frames, l, lut, aff, i%2 == 1) })
		}
		agree(t, rng, all.gh*all.gw*all.cols()*4, what+" all values",
			func(d []byte) { patchify32(d, allPix, all.gw*all.p*3, all, lut, 0, 1) },
			func(d []byte) { patchify32Auto(d, allPix, all.gw*all.p*3, all, lut, aff, true, 0, 1) })
		if imageSIMD(make([]byte, l.gh*l.gw*l.cols()*4), pix, stride, l, 4, 0, nb) {
			vector++
		}
	}
	if haveSIMD() && vector < len(params)/2 {
		t.Fatalf("only %d of %d cases ran the vector kernel", vector, len(params))
	}
}

// TestVBMIPatch16 runs vbmiPatch16 on its own against the portable
// kernel's bytes for every patch side it takes (each number of rows left
// for its last group of four), temporal copies 1-3, random tables and
// sources whose rows end right at the last byte the patch reads: the
// masked loads must not read past it, and the masked stores must leave
// every byte around the patch as it was.
func TestVBMIPatch16(t *testing.T) {
	if !haveVBMI() {
		t.Skip("no AVX-512 VBMI on this CPU")
	}
	rng := rand.New(rand.NewPCG(17, 5))
	for p := 1; p <= maxVBMIPatch; p++ {
		for copies := 1; copies <= 3; copies++ {
			_, lut := randomTables(rng)
			stride := 3*p + rng.IntN(7)
			src := garbage(rng, (p-1)*stride+3*p)
			pp := p * p
			plane := copies * pp * 2
			want := garbage(rng, 3*plane+64)
			got := bytes.Clone(want)
			for c := range 3 {
				for py := range p {
					for px := range p {
						v := lut[c][src[py*stride+3*px+c]]
						for ti := range copies {
							o := 32 + c*plane + ti*pp*2 + (py*p+px)*2
							want[o], want[o+1] = byte(v), byte(v>>8)
						}
					}
				}
			}
			vbmiPatch16(&got[32], &src[0], stride, p, plane, copies, pp*2, newTables16(lut, p))
			if !bytes.Equal(got, want) {
				t.Fatalf("p %d copies %d: differs at byte %d", p, copies, firstDiff(got, want)-32)
			}
		}
	}
}

// TestTables16Layout: the field offsets patch16_amd64.s reads.
func TestTables16Layout(t *testing.T) {
	var x tables16
	for name, got := range map[string]uintptr{
		"lo": unsafe.Offsetof(x.lo), "hi": unsafe.Offsetof(x.hi), "idx": unsafe.Offsetof(x.idx),
		"rows": unsafe.Offsetof(x.rows), "load": unsafe.Offsetof(x.load), "one": unsafe.Offsetof(x.one),
		"two": unsafe.Offsetof(x.two),
	} {
		want := map[string]uintptr{"lo": 0, "hi": 768, "idx": 1536, "rows": 1728, "load": 1760, "one": 1768, "two": 1776}[name]
		if got != want {
			t.Errorf("tables16.%s at %d, the assembly reads %d", name, got, want)
		}
	}
}
