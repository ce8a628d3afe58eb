package openai

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"
)

// This file answers: how are megabytes of inline media kept out of the JSON
// decoder? A request that carries images or videos as data: URLs is mostly
// one or two huge string values. encoding/json scans every byte of them
// several times (validation, then decoding, at each level of the typed
// decode). ParseChat first lifts such strings out with a quote scan that
// runs at memchr speed, decodes the small remainder, and puts them back
// where they belong.

// blobMin is the size from which a media string is lifted out.
const blobMin = 16 << 10

// blobTag starts the stand-in for a lifted string ("\u0000blob:N" in JSON).
const blobTag = "\x00blob:"

// liftBlobs returns body with every plain string value of min bytes or more
// of a "url" or "data" key replaced by a short stand-in, and the lifted
// strings in order. The strings share body's memory (no copy of megabytes
// per request), so body must not change while they are in use.
// A string is plain when it needs no unescaping and is valid as is (ASCII,
// no control characters, no backslash) — data: URLs are. Anything it does
// not understand is left in place for the decoder to judge.
func liftBlobs(body []byte, min int) ([]byte, []string) {
	var (
		out     []byte
		blobs   []string
		copied  int
		lastKey string
	)
	for i := 0; ; {
		q := bytes.IndexByte(body[i:], '"')
		if q < 0 {
			break
		}
		start := i + q
		end := closingQuote(body, start+1)
		if end < 0 {
			return body, nil // unterminated: the decoder reports it
		}
		content := body[start+1 : end]
		next := end + 1
		for next < len(body) && (body[next] == ' ' || body[next] == '\t' || body[next] == '\n' || body[next] == '\r') {
			next++
		}
		i = end + 1
		if next < len(body) && body[next] == ':' {
			lastKey = ""
			if len(content) <= 8 {
				lastKey = string(content)
			}
			continue
		}
		if len(content) < min || (lastKey != "url" && lastKey != "data") || !plain(content) || blank(content) {
			continue
		}
		out = append(out, body[copied:start]...)
		out = append(out, `"\u0000blob:`...)
		out = strconv.AppendInt(out, int64(len(blobs)), 10)
		out = append(out, '"')
		blobs = append(blobs, unsafe.String(unsafe.SliceData(content), len(content)))
		copied = end + 1
	}
	if blobs == nil {
		return body, nil
	}
	return append(out, body[copied:]...), blobs
}

// closingQuote returns the index of the quote that ends the string whose
// content starts at from, or -1.
func closingQuote(body []byte, from int) int {
	for j := from; ; {
		k := bytes.IndexByte(body[j:], '"')
		if k < 0 {
			return -1
		}
		end := j + k
		bs := 0
		for p := end - 1; p >= from && body[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return end
		}
		j = end + 1
	}
}

// blank reports whether a plain string is spaces only: such a URL is
// refused as empty, which its stand-in would not be.
func blank(b []byte) bool {
	return len(bytes.Trim(b, " ")) == 0
}

// plain reports whether a JSON string's raw content is its value: printable
// ASCII with no backslash.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// restoreBlobs puts lifted strings back into the media parts and reports
// whether every one was used (otherwise the caller decodes the original
// body instead: a stand-in landed somewhere it cannot be put back).
func restoreBlobs(msgs []Message, blobs []string) bool {
	used := 0
	put := func(s *string) {
		rest, ok := strings.CutPrefix(*s, blobTag)
		if !ok {
			return
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || n >= len(blobs) {
			return
		}
		*s = blobs[n]
		used++
	}
	for i := range msgs {
		for j := range msgs[i].Content.Parts {
			p := &msgs[i].Content.Parts[j]
			put(&p.URL)
			put(&p.Data)
		}
	}
	return used == len(blobs)
}
