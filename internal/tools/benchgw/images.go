package benchgw

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Image is one picture ready to send: its file name, MIME type, size and
// data: URL (base64), all computed before a run.
type Image struct {
	Name    string // file name inside the directory
	MIME    string // e.g. "image/jpeg"
	Bytes   int    // encoded file size
	DataURL string // "data:MIME;base64,..."
}

// imageMIMEs maps what http.DetectContentType sniffs to the types sent.
var imageMIMEs = map[string]bool{
	"image/jpeg": true, "image/png": true, "image/gif": true,
	"image/webp": true, "image/bmp": true,
}

// LoadImages reads every image file directly inside dir (not below), in name
// order, and base64-encodes it. Files whose content is not a recognised
// image (JPEG, PNG, GIF, WebP, BMP, TIFF) are skipped.
func LoadImages(dir string) ([]Image, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load images: %w", err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []Image
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, fmt.Errorf("load images: %w", err)
		}
		mime := sniffImage(b)
		if mime == "" {
			continue
		}
		out = append(out, Image{Name: n, MIME: mime, Bytes: len(b), DataURL: DataURL(mime, b)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load images: %s: %w", dir, ErrNoImages)
	}
	return out, nil
}

// DataURL returns "data:MIME;base64,<b>".
func DataURL(mime string, b []byte) string {
	prefix := "data:" + mime + ";base64,"
	buf := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(len(b)))
	copy(buf, prefix)
	base64.StdEncoding.Encode(buf[len(prefix):], b)
	return string(buf)
}

// sniffImage returns the image MIME type of b, or "".
func sniffImage(b []byte) string {
	if len(b) >= 4 && (string(b[:4]) == "II*\x00" || string(b[:4]) == "MM\x00*") {
		return "image/tiff"
	}
	m := http.DetectContentType(b)
	if i := strings.IndexByte(m, ';'); i >= 0 {
		m = m[:i]
	}
	if imageMIMEs[m] {
		return m
	}
	return ""
}
