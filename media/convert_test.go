package media

import (
	"context"
	"testing"

	"github.com/mmgate/mmgate/imaging"
)

// TestPastePairs composites every (value, alpha) pair onto extra
// backgrounds and compares with Pillow's paste (golden.json "paste").
func TestPastePairs(t *testing.T) {
	var spec struct {
		File  string `json:"paste_file"`
		Paste []struct {
			Background [3]uint8 `json:"background"`
			SHA256     string   `json:"sha256"`
		} `json:"paste"`
	}
	loadJSON(t, &spec)
	if len(spec.Paste) == 0 || spec.File == "" {
		t.Fatal("no paste cases in golden.json")
	}
	data := readCorpus(t, spec.File)
	for _, p := range spec.Paste {
		bg := p.Background
		d, err := New(Options{Background: &bg})
		if err != nil {
			t.Fatal(err)
		}
		img, err := d.Decode(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		if got := sum(img.RGB.Pix); got != p.SHA256 {
			t.Errorf("background %v: sha256 %s, want %s", bg, got, p.SHA256)
		}
	}
}

// TestBlendMatchesFloat checks div255 against the exact rounding it
// implements: round-half-up of x/255 for every product the paste forms.
func TestBlendMatchesFloat(t *testing.T) {
	for x := 0; x <= 255*255; x++ {
		want := (2*x + 255) / 510 // floor(x/255 + 1/2)
		if got := div255(x); got != want {
			t.Fatalf("div255(%d) = %d, want %d", x, got, want)
		}
	}
}

func TestCMYKToRGB(t *testing.T) {
	// Pillow 9.4: Image.new("CMYK", (1, 1), (10, 20, 30, 40)).convert("RGB").
	r, g, b := cmykToRGB(10, 20, 30, 40)
	if r != 207 || g != 198 || b != 190 {
		t.Errorf("cmykToRGB(10,20,30,40) = %d,%d,%d, want 207,198,190", r, g, b)
	}
}

// orientRef is the obviously-correct per-pixel form of the table in orient's
// documentation.
func orientRef(src *imaging.RGB, o int) *imaging.RGB {
	W, H := src.Width, src.Height
	ow, oh := orientedSize(W, H, o)
	dst := imaging.NewRGB(ow, oh)
	for y := 0; y < oh; y++ {
		for x := 0; x < ow; x++ {
			var sx, sy int
			switch o {
			case 2:
				sx, sy = W-1-x, y
			case 3:
				sx, sy = W-1-x, H-1-y
			case 4:
				sx, sy = x, H-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, H-1-x
			case 7:
				sx, sy = W-1-y, H-1-x
			case 8:
				sx, sy = W-1-y, x
			default:
				sx, sy = x, y
			}
			copy(dst.Pix[(y*ow+x)*3:(y*ow+x)*3+3], src.Pix[(sy*W+sx)*3:(sy*W+sx)*3+3])
		}
	}
	return dst
}

func TestOrientMatchesReference(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {1, 7}, {7, 1}, {5, 3}, {40, 24}} {
		src := imaging.NewRGB(sz[0], sz[1])
		for i := range src.Pix {
			src.Pix[i] = uint8(i * 7)
		}
		for o := 1; o <= 8; o++ {
			got, want := orient(src, o), orientRef(src, o)
			if got.Width != want.Width || got.Height != want.Height || string(got.Pix) != string(want.Pix) {
				t.Errorf("%dx%d orientation %d differs from the reference", sz[0], sz[1], o)
			}
		}
	}
}

func TestOptions(t *testing.T) {
	if _, err := New(Options{MaxPixels: -1}); err == nil {
		t.Error("negative MaxPixels accepted")
	}
	d, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.bg != [3]uint8{255, 255, 255} || d.maxPixels != DefaultMaxPixels {
		t.Errorf("zero Options: bg %v, max %d", d.bg, d.maxPixels)
	}
}

// TestBlendShortcuts checks the identities toRGB's fast paths rely on.
func TestBlendShortcuts(t *testing.T) {
	for bg := 0; bg < 256; bg++ {
		for s := 0; s < 256; s++ {
			if blend(bg, s, 255) != uint8(s) || blend(bg, s, 0) != uint8(bg) {
				t.Fatalf("blend(%d, %d, 0/255) is not exact", bg, s)
			}
		}
	}
}
