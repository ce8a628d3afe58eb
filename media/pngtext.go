package media

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"io"
	"strings"
)

// pngMeta gathers, in chunk order, the PNG metadata Pillow 9.4's getexif
// reads: info["exif"] (from eXIf, or a tEXt chunk keyed "exif"), the
// ImageMagick-style "Raw profile type exif" text, and XMP
// ("XML:com.adobe.xmp"). Later chunks replace earlier ones, as they
// replace the info entries.
type pngMeta struct {
	exif    []byte // as Pillow stores it; nil when absent
	exifBad bool   // info["exif"] is a str (zTXt/iTXt): Exif.load raises
	rawExif *string
	xmp     *string
}

// maxPNGText is Pillow's MAX_TEXT_CHUNK: compressed text that inflates to
// more is not used here (Pillow raises).
const maxPNGText = 1 << 20

func (m *pngMeta) chunk(typ string, body []byte) {
	switch typ {
	case "eXIf":
		m.exif, m.exifBad = append([]byte("Exif\x00\x00"), body...), false
	case "tEXt":
		k, v, _ := bytes.Cut(body, []byte{0})
		m.text(string(k), v, true)
	case "zTXt":
		k, v, found := bytes.Cut(body, []byte{0})
		if !m.wanted(string(k)) {
			return
		}
		if found && len(v) > 0 && v[0] != 0 {
			return // unknown compression method: Pillow raises
		}
		if len(v) > 0 {
			v = v[1:]
		}
		t, ok := inflateText(v)
		if !ok {
			t = nil // zlib.error: Pillow keeps an empty value
		}
		m.text(string(k), t, false)
	case "iTXt":
		k, r, found := bytes.Cut(body, []byte{0})
		if !found || len(r) < 2 || !m.wanted(string(k)) {
			return
		}
		cf, cm, r := r[0], r[1], r[2:]
		parts := bytes.SplitN(r, []byte{0}, 3)
		if len(parts) != 3 {
			return
		}
		v := parts[2]
		if cf != 0 {
			if cm != 0 {
				return
			}
			var ok bool
			if v, ok = inflateText(v); !ok {
				return
			}
		}
		m.text(string(k), v, false)
	}
}

func (m *pngMeta) wanted(k string) bool {
	return k == "exif" || k == "Raw profile type exif" || k == "XML:com.adobe.xmp"
}

// text records a text chunk; raw is true for tEXt, whose "exif" value
// Pillow keeps as bytes.
func (m *pngMeta) text(k string, v []byte, raw bool) {
	switch k {
	case "exif":
		if raw {
			m.exif, m.exifBad = append([]byte(nil), v...), false
		} else {
			m.exif, m.exifBad = nil, true
		}
	case "Raw profile type exif":
		s := string(v)
		m.rawExif = &s
	case "XML:com.adobe.xmp":
		s := string(v)
		m.xmp = &s
	}
}

func inflateText(v []byte) ([]byte, bool) {
	zr, err := zlib.NewReader(bytes.NewReader(v))
	if err != nil {
		return nil, false
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxPNGText+1))
	if len(out) > maxPNGText {
		return nil, false
	}
	if err != nil && len(out) == 0 {
		return nil, false
	}
	return out, true
}

// xmpOrientation is the digit of the first match of Pillow's pattern
// tiff:Orientation(="|>)([0-9]) in xmp, or -1 when nothing matches.
func xmpOrientation(xmp string) int {
	const key = "tiff:Orientation"
	for s := xmp; ; {
		i := strings.Index(s, key)
		if i < 0 {
			return -1
		}
		s = s[i+len(key):]
		switch {
		case len(s) > 2 && s[0] == '=' && s[1] == '"' && s[2] >= '0' && s[2] <= '9':
			return int(s[2] - '0')
		case len(s) > 1 && s[0] == '>' && s[1] >= '0' && s[1] <= '9':
			return int(s[1] - '0')
		}
	}
}

// orientation applies Image.getexif's order: info["exif"], else the raw
// profile (hex), then XMP when the EXIF has no orientation tag.
func (m *pngMeta) orientation() int {
	var blob []byte
	switch {
	case m.exifBad:
		return 1
	case m.exif != nil:
		blob = m.exif
	case m.rawExif != nil:
		lines := strings.Split(*m.rawExif, "\n")
		if len(lines) < 3 {
			lines = nil
		} else {
			lines = lines[3:]
		}
		h := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' {
				return -1
			}
			return r
		}, strings.Join(lines, ""))
		b, err := hex.DecodeString(h)
		if err != nil {
			return 1 // bytes.fromhex raises
		}
		blob = b
	}
	if blob != nil {
		o, hasTag, ok := parseExif(blob)
		if !ok || hasTag {
			return o
		}
	}
	if m.xmp != nil {
		if d := xmpOrientation(*m.xmp); d >= 2 && d <= 8 {
			return d
		}
	}
	return 1
}
