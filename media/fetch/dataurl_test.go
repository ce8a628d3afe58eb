package fetch

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"
)

func TestDataURLValid(t *testing.T) {
	tests := []struct {
		url    string
		want   string
		mime   string
		params map[string]string
	}{
		{"data:image/png;base64,iVBORw0KGgo=", "\x89PNG\r\n\x1a\n", "image/png", nil},
		{"data:image/png;base64,iVBORw0KGgo", "\x89PNG\r\n\x1a\n", "image/png", nil},
		{"DATA:Image/PNG;BASE64,iVBORw0KGgo=", "\x89PNG\r\n\x1a\n", "image/png", nil},
		{"data:image/png; base64 ,iVBORw0KGgo=", "\x89PNG\r\n\x1a\n", "image/png", nil},
		{"  data:image/png;base64,iVBORw0KGgo=\n", "\x89PNG\r\n\x1a\n", "image/png", nil},
		{"data:image/png;base64,iVBO Rw0K\r\nGgo=", "\x89PNG\r\n\x1a\n", "image/png", nil},
		{"data:image/png;base64,iVBORw0KGgo%3D", "\x89PNG\r\n\x1a\n", "image/png", nil},
		{"data:;base64,SGVsbG8=", "Hello", "", nil},
		{"data:,Hello%2C%20World%21", "Hello, World!", "", nil},
		{"data:text/plain;charset=UTF-8,caf%C3%A9", "café", "text/plain", map[string]string{"charset": "UTF-8"}},
		{"data:text/plain;charset=\"utf-8\";name=a.txt,x", "x", "text/plain", map[string]string{"charset": "utf-8", "name": "a.txt"}},
		{"data:text/plain;bogus;x=1,a b", "a b", "text/plain", map[string]string{"x": "1"}},
		{"data:not-a-type,abc", "abc", "", nil},
		{"data:image/svg+xml,%3Csvg%2F%3E", "<svg/>", "image/svg+xml", nil},
		{"data:,", "", "", nil},
		{"data:;base64,", "", "", nil},
		{"data:image/jpeg;base64,/9j/4A==", "\xff\xd8\xff\xe0", "image/jpeg", nil},
		{"data:image/jpeg;base64,_9j_4A==", "\xff\xd8\xff\xe0", "image/jpeg", nil},
		{"data:image/jpeg;base64,_9j_4A", "\xff\xd8\xff\xe0", "image/jpeg", nil},
		{"data:image/jpeg;base64,/9j_4A", "\xff\xd8\xff\xe0", "image/jpeg", nil},
		{"data:;base64,QQ==", "A", "", nil},
		{"data:;base64,QR==", "A", "", nil}, // unused bits ignored
		{"data:;base64,QUI", "AB", "", nil},
		{"data:;base64,QUI=  ", "AB", "", nil},
		{"data:;base64,Q U I =", "AB", "", nil},
		{"data:;base64,%51%55%49", "AB", "", nil},
		{"data:,a,b", "a,b", "", nil},
	}
	f, _, _ := newTestFetcher(t, Policy{})
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			m, err := f.Fetch(context.Background(), tt.url)
			wantKind(t, err, nil)
			if string(m.Bytes) != tt.want || m.MIME != tt.mime || m.Source != "data" {
				t.Fatalf("got %q %q %q, want %q %q", m.Bytes, m.MIME, m.Source, tt.want, tt.mime)
			}
			d, err := ParseDataURL(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Params) != len(tt.params) {
				t.Fatalf("params %v, want %v", d.Params, tt.params)
			}
			for k, v := range tt.params {
				if d.Params[k] != v {
					t.Fatalf("params %v, want %v", d.Params, tt.params)
				}
			}
		})
	}
}

func TestDataURLInvalid(t *testing.T) {
	tests := []string{
		"data:image/png;base64",               // missing comma
		"data:image/png;base64iVBORw0KGgo=",   // missing comma
		"data:image/png;base64,iVBORw0KGgo*",  // bad character
		"data:image/png;base64,iVBORw0KG",     // a final group of one character
		"data:image/png;base64,iVBORw0KGgo==", // too much padding
		"data:;base64,Q===",
		"data:;base64,====",
		"data:;base64,=",
		"data:;base64,QQ=",      // incomplete padding
		"data:;base64,QQ==QQ==", // data after padding
		"data:;base64,QQ=Q",
		"data:;base64,QUJD%",      // truncated escape
		"data:;base64,QUJD%4",     // truncated escape
		"data:;base64,QUJD%zz",    // bad escape
		"data:;base64,QUJD%25",    // an escaped '%' is no base64
		"data:;base64,QUJD\x00",   // NUL
		"data:;base64,QUJDRA\v==", // vertical tab is not whitespace here
		"data:,100%",
		"data:,%G0",
		"data:,%",
	}
	f, _, _ := newTestFetcher(t, Policy{})
	for _, u := range tests {
		t.Run(u, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), u)
			wantKind(t, err, ErrBadURL)
			if strings.Contains(u, ",") && strings.Contains(err.Error(), u[strings.IndexByte(u, ',')+1:]+"x") {
				t.Fatal("message repeats the payload")
			}
		})
	}
}

// TestDataURLMatchesStdlib round-trips random bytes through every encoding
// variant the decoder accepts, with encoding/base64 as the reference.
func TestDataURLMatchesStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	encs := []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding}
	for n := range 70 {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.UintN(256))
		}
		for ei, enc := range encs {
			s := enc.EncodeToString(data)
			variants := []string{s, wrap(s, 76, "\r\n"), wrap(s, 3, " "), url.QueryEscape(s), strings.ReplaceAll(s, "=", "%3D")}
			for _, v := range variants {
				d, err := ParseDataURL("data:application/octet-stream;base64," + v)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.Decode(1 << 20)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("n=%d enc=%d %q: got %x, %v; want %x", n, ei, v, got, err, data)
				}
			}
		}
	}
}

func wrap(s string, n int, sep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		b.WriteString(s[i:min(i+n, len(s))])
		b.WriteString(sep)
	}
	return b.String()
}

func TestDataURLCap(t *testing.T) {
	const max = 1000
	for _, tt := range []struct {
		n    int
		want error
	}{{max - 1, nil}, {max, nil}, {max + 1, ErrTooLarge}, {max + 2, ErrTooLarge}, {10 * max, ErrTooLarge}} {
		data := bytes.Repeat([]byte{7}, tt.n)
		for _, u := range []string{
			"data:;base64," + base64.StdEncoding.EncodeToString(data),
			"data:;base64," + base64.RawURLEncoding.EncodeToString(data),
			"data:;base64," + wrap(base64.StdEncoding.EncodeToString(data), 5, "\n"),
			"data:," + string(data),
			"data:," + strings.Repeat("%07", tt.n),
		} {
			d, err := ParseDataURL(u)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Decode(max)
			wantKind(t, err, tt.want)
			if err == nil && (len(got) != tt.n || cap(got) > max+1) {
				t.Fatalf("n=%d: len %d cap %d", tt.n, len(got), cap(got))
			}
		}
	}
	// Through a Fetcher: its MaxBytes applies.
	f, _, _ := newTestFetcher(t, Policy{MaxBytes: max})
	_, err := f.Fetch(context.Background(), "data:;base64,"+base64.StdEncoding.EncodeToString(make([]byte, max+1)))
	wantKind(t, err, ErrTooLarge)
}

// TestDataURLDecodeMemory checks that an oversized payload costs no more than
// the cap in decoded bytes.
func TestDataURLDecodeMemory(t *testing.T) {
	const max = 1 << 20
	u := "data:;base64," + base64.StdEncoding.EncodeToString(make([]byte, 16<<20))
	d, err := ParseDataURL(u)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := d.Decode(max); err == nil {
			t.Fatal("no error")
		}
	})
	if allocs > 16 {
		t.Fatalf("%v allocations", allocs)
	}
	var ms1, ms2 runtimeMem
	ms1.read()
	d.Decode(max)
	ms2.read()
	if grew := ms2.total - ms1.total; grew > 2*max {
		t.Fatalf("allocated %d bytes to refuse a payload over %d", grew, max)
	}
}

func TestShortURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"data:image/png;base64,AAAA", "data:image/png;base64,<4 bytes>"},
		{"https://user:secret@example.com/a.png?sig=abc#f", "https://example.com/a.png"},
		{"http://example.com/" + strings.Repeat("a", 300), "http://example.com/" + strings.Repeat("a", 181) + "…"},
	}
	for _, tt := range tests {
		if got := shortURL(tt.in); got != tt.want {
			t.Errorf("shortURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func BenchmarkDataURLDecode(b *testing.B) {
	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	d, err := ParseDataURL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(data))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := d.Decode(0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDataURLMatchesBrowser compares the decoder with a browser-grade data:
// URL processor (Node's fetch; scripts/golden/fetch_dataurl.mjs). The cases
// use only the standard alphabet and well-formed escapes, where the two
// grammars agree; the declared type is compared when the URL declares one.
func TestDataURLMatchesBrowser(t *testing.T) {
	raw, err := os.ReadFile("testdata/dataurl_node.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			URL         string `json:"url"`
			OK          bool   `json:"ok"`
			Hex         string `json:"hex"`
			ContentType string `json:"content_type"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 30 {
		t.Fatalf("only %d cases", len(golden.Cases))
	}
	f, _, _ := newTestFetcher(t, Policy{})
	for _, c := range golden.Cases {
		m, err := f.Fetch(context.Background(), c.URL)
		if (err == nil) != c.OK {
			t.Errorf("%q: error %v, browser ok=%v", c.URL, err, c.OK)
			continue
		}
		if err != nil {
			wantKind(t, err, ErrBadURL)
			continue
		}
		if got := hex.EncodeToString(m.Bytes); got != c.Hex {
			t.Errorf("%q: got %s, browser %s", c.URL, got, c.Hex)
		}
		if m.MIME != "" && m.MIME != mediaType(c.ContentType) {
			t.Errorf("%q: MIME %q, browser %q", c.URL, m.MIME, c.ContentType)
		}
	}
}

// TestReleaseReuse: bytes given back with Media.Release serve the next
// data: URL, which decodes to its own content whatever the buffer held
// (larger, smaller, or a refused payload in between).
func TestReleaseReuse(t *testing.T) {
	f, err := New(Policy{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, payload := range [][]byte{
		bytes.Repeat([]byte{1, 2, 3}, 5000), []byte("short"), nil, bytes.Repeat([]byte{9}, 70000), []byte("x"),
	} {
		url := "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(payload)
		m, err := f.Fetch(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.Bytes, payload) {
			t.Fatalf("decoded %d bytes, want %d", len(m.Bytes), len(payload))
		}
		m.Release()
		if m.Bytes != nil {
			t.Fatal("Bytes still set after Release")
		}
		m.Release() // a second call does nothing
		if _, err := f.Fetch(context.Background(), "data:;base64,@@@@"); err == nil {
			t.Fatal("invalid base64 accepted")
		}
	}
	var nilMedia *Media
	nilMedia.Release()
}
