package fetch

import (
	"strings"
)

// DataURL is a parsed RFC 2397 data: URL. Only the header is parsed; the
// payload is decoded by Decode, under a size cap.
type DataURL struct {
	// MIME is the declared media type, lower case, without parameters; ""
	// when the URL declares none (RFC 2397 then implies text/plain) or
	// declares something that is not a type/subtype pair. It is what the
	// client claims, never proof of the format.
	MIME string
	// Params holds the media type parameters (keys lower case), nil if none.
	Params map[string]string
	// Base64 reports a ";base64" payload.
	Base64 bool

	payload string
}

// ParseDataURL parses the header of data:[<mediatype>][;base64],<data>.
// Leading and trailing ASCII whitespace around the URL is ignored, the
// scheme and the base64 marker are case-insensitive, malformed media type
// parameters are ignored (as browsers do). A URL without a comma is
// ErrBadURL.
func ParseDataURL(raw string) (*DataURL, error) {
	raw = strings.Trim(raw, asciiSpace)
	if len(raw) < 5 || !strings.EqualFold(raw[:5], "data:") {
		return nil, &Error{Op: "fetch data", URL: shortURL(raw), Kind: ErrBadURL, Detail: "not a data: URL"}
	}
	comma := strings.IndexByte(raw, ',')
	if comma < 0 {
		return nil, &Error{Op: "fetch data", URL: shortURL(raw), Kind: ErrBadURL, Detail: "missing comma before the payload"}
	}
	d := &DataURL{payload: raw[comma+1:]}
	header := raw[5:comma]
	segs := strings.Split(header, ";")
	if n := len(segs); n > 1 && strings.EqualFold(strings.Trim(segs[n-1], asciiSpace), "base64") {
		d.Base64 = true
		segs = segs[:n-1]
	}
	if mt := strings.ToLower(strings.Trim(segs[0], asciiSpace)); validMediaType(mt) {
		d.MIME = mt
	}
	for _, p := range segs[1:] {
		k, v, ok := strings.Cut(p, "=")
		k = strings.ToLower(strings.Trim(k, asciiSpace))
		if !ok || !isToken(k) {
			continue
		}
		v = strings.Trim(v, asciiSpace)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		if d.Params == nil {
			d.Params = map[string]string{}
		}
		if _, dup := d.Params[k]; !dup {
			d.Params[k] = v
		}
	}
	return d, nil
}

// PayloadLen is the length of the still-encoded payload in bytes.
func (d *DataURL) PayloadLen() int { return len(d.payload) }

// Decode decodes the payload, refusing with ErrTooLarge as soon as more than
// maxBytes would be produced (maxBytes <= 0 means DefaultMaxBytes). It never
// holds more than maxBytes+1 decoded bytes.
//
// Percent escapes (%XX) are decoded first, in both payload kinds; a '%' not
// followed by two hex digits is ErrBadURL. A base64 payload is read as
// browsers' forgiving-base64 does, extended to the URL-safe alphabet:
//   - ASCII whitespace (space, tab, CR, LF, FF) anywhere is skipped;
//   - '+' and '-' both mean 62, '/' and '_' both mean 63;
//   - '=' padding is optional, but if present it must come only at the end
//     and complete the last 4-character group;
//   - a final group of a single character is invalid; unused low bits of the
//     last group are ignored (as Python and browsers do);
//   - any other character is invalid.
//
// Invalid base64 is ErrBadURL. Other bytes of a non-base64 payload are
// taken as they are.
func (d *DataURL) Decode(maxBytes int64) ([]byte, error) { return d.decodeInto(nil, maxBytes) }

// decodeInto is Decode writing into dst's capacity when it is enough.
func (d *DataURL) decodeInto(dst []byte, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	var out []byte
	var err error
	if d.Base64 {
		out, err = decodeBase64(dst, d.payload, maxBytes)
	} else {
		out, err = decodePercent(d.payload, maxBytes)
	}
	if err != nil {
		return nil, withOp(err, "fetch data", "")
	}
	return out, nil
}

const asciiSpace = " \t\n\r\f"

// Character classes of the base64 decoding table beyond the 64 values.
const (
	b64Invalid = 0xff
	b64Space   = 0xfe
	b64Pad     = 0xfd
	b64Percent = 0xfc
)

// b64Table maps a byte to its 6-bit value or a class above.
var b64Table = func() (t [256]byte) {
	for i := range t {
		t[i] = b64Invalid
	}
	const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(std); i++ {
		t[std[i]] = byte(i)
	}
	t['-'], t['_'] = 62, 63
	for _, c := range []byte(asciiSpace) {
		t[c] = b64Space
	}
	t['='] = b64Pad
	t['%'] = b64Percent
	return t
}()

func decodedCap(bound int, maxBytes int64) int {
	if int64(bound) > maxBytes+1 {
		return int(maxBytes + 1)
	}
	return bound
}

func tooLargeData(maxBytes int64) error {
	return newErr(ErrTooLarge, "decoded data: payload is over %d bytes", maxBytes)
}

func decodeBase64(dst []byte, s string, maxBytes int64) ([]byte, error) {
	d := b64Decoder{out: dst[:0], maxBytes: maxBytes}
	if need := decodedCap(len(s)/4*3+3, maxBytes); cap(d.out) < need {
		d.out = make([]byte, 0, need)
	}
	for i := 0; i < len(s); {
		if d.n == 0 && d.pads == 0 {
			var err error
			if i, err = d.plainGroups(s, i); err != nil {
				return nil, err
			}
			if i == len(s) {
				break
			}
		}
		ch, next, err := payloadByte(s, i)
		if err != nil {
			return nil, err
		}
		i = next
		if err := d.add(ch, i-1); err != nil {
			return nil, err
		}
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	return d.out, nil
}

// b64Decoder is decodeBase64's state: the output so far and the sextets
// of a group of four not yet complete.
type b64Decoder struct {
	out      []byte
	maxBytes int64
	acc      uint32 // pending sextets, most recent in the low bits
	n        int    // sextets in acc (0..3)
	pads     int
}

func (d *b64Decoder) emit(b ...byte) error {
	if int64(len(d.out)+len(b)) > d.maxBytes {
		return tooLargeData(d.maxBytes)
	}
	d.out = append(d.out, b...)
	return nil
}

// plainGroups is the fast path, taken between groups: it decodes whole
// groups of four plain alphabet characters from s[i:], written straight
// into the spare capacity, and returns the index of the first character
// it left.
func (d *b64Decoder) plainGroups(s string, i int) (int, error) {
	out := d.out
	o := len(out)
	room := min(int64(cap(out)), d.maxBytes) - int64(o)
	for i+8 <= len(s) && room >= 6 {
		t := &b64Table
		c0, c1, c2, c3 := t[s[i]], t[s[i+1]], t[s[i+2]], t[s[i+3]]
		c4, c5, c6, c7 := t[s[i+4]], t[s[i+5]], t[s[i+6]], t[s[i+7]]
		if c0|c1|c2|c3|c4|c5|c6|c7 >= 64 {
			break
		}
		v := uint64(c0)<<42 | uint64(c1)<<36 | uint64(c2)<<30 | uint64(c3)<<24 |
			uint64(c4)<<18 | uint64(c5)<<12 | uint64(c6)<<6 | uint64(c7)
		dst := out[o : o+6 : o+6]
		dst[0], dst[1], dst[2], dst[3], dst[4], dst[5] = byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
		o += 6
		room -= 6
		i += 8
	}
	for i+4 <= len(s) {
		a, b, c, e := b64Table[s[i]], b64Table[s[i+1]], b64Table[s[i+2]], b64Table[s[i+3]]
		if a|b|c|e >= 64 {
			break
		}
		if room < 3 {
			return i, tooLargeData(d.maxBytes)
		}
		v := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(e)
		dst := out[o : o+3 : o+3]
		dst[0], dst[1], dst[2] = byte(v>>16), byte(v>>8), byte(v)
		o += 3
		room -= 3
		i += 4
	}
	d.out = out[:o]
	return i, nil
}

// payloadByte is the payload character at s[i], a percent escape decoded,
// and the index after it.
func payloadByte(s string, i int) (byte, int, error) {
	ch := s[i]
	i++
	if ch != '%' {
		return ch, i, nil
	}
	if i+2 > len(s) {
		return 0, 0, newErr(ErrBadURL, "truncated percent escape in data: payload")
	}
	hi, ok1 := digitValue(s[i])
	lo, ok2 := digitValue(s[i+1])
	if !ok1 || !ok2 {
		return 0, 0, newErr(ErrBadURL, "invalid percent escape %q in data: payload", s[i-1:i+2])
	}
	return byte(hi<<4 | lo), i + 2, nil
}

// add takes one payload character, found at byte at of the payload:
// spaces are skipped, padding counted, and each fourth sextet completes a
// group of three bytes.
func (d *b64Decoder) add(ch byte, at int) error {
	v := b64Table[ch]
	switch {
	case v == b64Space:
		return nil
	case v == b64Pad:
		d.pads++
		if d.n < 2 || d.n+d.pads > 4 {
			return newErr(ErrBadURL, "invalid base64 padding at byte %d of data: payload", at)
		}
		return nil
	case v < 64:
		if d.pads > 0 {
			return newErr(ErrBadURL, "base64 data after padding at byte %d of data: payload", at)
		}
	default:
		return newErr(ErrBadURL, "invalid base64 character %q at byte %d of data: payload", ch, at)
	}
	d.acc = d.acc<<6 | uint32(v)
	d.n++
	if d.n == 4 {
		if err := d.emit(byte(d.acc>>16), byte(d.acc>>8), byte(d.acc)); err != nil {
			return err
		}
		d.acc, d.n = 0, 0
	}
	return nil
}

// finish checks the padding and writes the bytes of a last, short group.
func (d *b64Decoder) finish() error {
	if d.pads > 0 && d.n+d.pads != 4 {
		return newErr(ErrBadURL, "incomplete base64 padding in data: payload")
	}
	switch d.n {
	case 1:
		return newErr(ErrBadURL, "truncated base64 in data: payload (a final group of one character)")
	case 2:
		return d.emit(byte(d.acc >> 4))
	case 3:
		return d.emit(byte(d.acc>>10), byte(d.acc>>2))
	}
	return nil
}

func decodePercent(s string, maxBytes int64) ([]byte, error) {
	out := make([]byte, 0, decodedCap(len(s), maxBytes))
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '%')
		if j < 0 {
			j = len(s) - i
		}
		if int64(len(out)+j) > maxBytes {
			return nil, tooLargeData(maxBytes)
		}
		out = append(out, s[i:i+j]...)
		i += j
		if i == len(s) {
			break
		}
		if i+3 > len(s) {
			return nil, newErr(ErrBadURL, "truncated percent escape in data: payload")
		}
		hi, ok1 := digitValue(s[i+1])
		lo, ok2 := digitValue(s[i+2])
		if !ok1 || !ok2 {
			return nil, newErr(ErrBadURL, "invalid percent escape %q in data: payload", s[i:i+3])
		}
		if int64(len(out)+1) > maxBytes {
			return nil, tooLargeData(maxBytes)
		}
		out = append(out, byte(hi<<4|lo))
		i += 3
	}
	return out, nil
}

// validMediaType reports whether s looks like type/subtype (RFC 2045 tokens).
func validMediaType(s string) bool {
	t, sub, ok := strings.Cut(s, "/")
	return ok && isToken(t) && isToken(sub)
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}
