package media

import (
	"context"
	"errors"
	"testing"
)

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		data string
		want string
	}{
		{"\xff\xd8\xff\xe0", FormatJPEG},
		{"\x89PNG\r\n\x1a\n", FormatPNG},
		{"GIF89a", FormatGIF},
		{"GIF87a", FormatGIF},
		{"BM", FormatBMP},
		{"II*\x00", FormatTIFF},
		{"MM\x00*", FormatTIFF},
		{"RIFF\x00\x00\x00\x00WEBP", FormatWebP},
		{"RIFF\x00\x00\x00\x00WAVE", ""},
		{"\xff\xd8", ""},
		{"", ""},
		{"<svg", ""},
	} {
		if got := Sniff([]byte(c.data)); got != c.want {
			t.Errorf("Sniff(%q) = %q, want %q", c.data, got, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	d, _ := New(Options{})
	ctx := context.Background()
	if _, err := d.Decode(ctx, []byte("hello, world")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("text: %v, want ErrUnsupported", err)
	}
	if !errors.Is(ErrTruncated, ErrCorrupt) || errors.Is(ErrCorrupt, ErrTruncated) {
		t.Error("ErrTruncated must be a kind of ErrCorrupt")
	}
	data := readCorpus(t, "jpeg_444.jpg")
	if _, err := d.Decode(ctx, data[:len(data)/2]); !errors.Is(err, ErrTruncated) {
		t.Errorf("half a JPEG: %v, want ErrTruncated", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d.Decode(cctx, data); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestPixelCap checks that Probe and Decode refuse an image over the cap
// from its header, before decoding: a 1919×1081 JPEG against a 2 Mpx cap
// and a PNG header announcing 100000×100000 with no data behind it.
func TestPixelCap(t *testing.T) {
	d, _ := New(Options{MaxPixels: 2_000_000})
	data := readCorpus(t, "jpeg_1919x1081_422.jpg")
	if _, err := d.Decode(context.Background(), data); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Decode: %v, want ErrTooLarge", err)
	}
	h, err := d.Probe(data)
	if !errors.Is(err, ErrTooLarge) || h.Width != 1919 || h.Height != 1081 {
		t.Errorf("Probe: %+v %v", h, err)
	}
	small, _ := New(Options{MaxPixels: 1919 * 1081})
	if _, err := small.Decode(context.Background(), data); err != nil {
		t.Errorf("exactly at the cap: %v", err)
	}
	big := pngHeaderOnly(100000, 100000)
	def, _ := New(Options{})
	if _, err := def.Decode(context.Background(), big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("10 Gpx PNG: %v, want ErrTooLarge", err)
	}
}

func TestNoEXIF(t *testing.T) {
	d, _ := New(Options{NoEXIF: true})
	data := readCorpus(t, "exif_jpeg_o6.jpg")
	img, err := d.Decode(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if img.Orientation != 1 || img.RGB.Width != 40 || img.RGB.Height != 24 {
		t.Errorf("NoEXIF: orientation %d, %dx%d", img.Orientation, img.RGB.Width, img.RGB.Height)
	}
	plain, _ := New(Options{})
	rot, _ := plain.Decode(context.Background(), data)
	if want := orient(img.RGB, 6); string(want.Pix) != string(rot.RGB.Pix) {
		t.Error("orientation 6 is not the NoEXIF pixels rotated")
	}
	h, _ := d.Probe(data)
	if h.Orientation != 1 || h.Width != 40 {
		t.Errorf("NoEXIF Probe: %+v", h)
	}
}

func TestDecoders(t *testing.T) {
	ds := Decoders()
	if len(ds) != 6 {
		t.Fatalf("%d decoders", len(ds))
	}
	for _, d := range ds {
		if d.Format == "" || d.Library == "" {
			t.Errorf("incomplete %+v", d)
		}
		if (d.Format == FormatPNG || d.Format == FormatGIF) && !d.Exact {
			t.Errorf("%s must be exact", d.Format)
		}
	}
	t.Logf("%+v (all exact: %v)", ds, Exact())
}

// TestConcurrentDecode decodes corpus files from several goroutines with
// one Decoder (run with -race) and checks every result against the golden
// hash.
func TestConcurrentDecode(t *testing.T) {
	m := loadGolden(t)
	d, _ := New(Options{})
	var cases []goldenCase
	var files [][]byte
	for _, c := range m.Cases {
		if c.Error == "" && !c.KnownUnsupported && len(c.File) > 6 && c.File[:6] != "photo_" && formatExact(c.Format) {
			cases = append(cases, c)
			files = append(files, readCorpus(t, c.File))
		}
	}
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for i := g; i < len(cases); i += 2 {
				c := cases[i]
				img, err := d.Decode(context.Background(), files[i])
				if err != nil {
					errs <- err
					return
				}
				if sum(img.RGB.Pix) != c.SHA256 {
					errs <- errors.New(c.File + ": hash differs under concurrency")
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
