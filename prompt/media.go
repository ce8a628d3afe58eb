package prompt

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/zeebo/blake3"
)

// Modality is a kind of media item.
type Modality uint8

// The modalities. The zero value is invalid.
const (
	Image Modality = iota + 1
	Video
	Audio
)

// String returns "image", "video" or "audio".
func (m Modality) String() string {
	switch m {
	case Image:
		return "image"
	case Video:
		return "video"
	case Audio:
		return "audio"
	}
	return fmt.Sprintf("modality(%d)", uint8(m))
}

// MediaItem is one media item of a request, in prompt order.
type MediaItem struct {
	Modality Modality
	// URL is the source as sent: a data: URL, http(s):// or file:// URL.
	// Empty for input_audio.
	URL    string
	Detail string // image_url.detail
	// AudioData and AudioFormat are input_audio's base64 data and format.
	AudioData   string
	AudioFormat string
	// Param is the JSON path of the part, for error messages
	// ("messages[1].content[0]").
	Param string
}

// Scheme returns the item's source scheme in lower case: "data", "http",
// "https", "file", … ("data" for input_audio).
func (it MediaItem) Scheme() string {
	if it.URL == "" {
		return "data"
	}
	i := strings.IndexByte(it.URL, ':')
	if i <= 0 {
		return ""
	}
	return strings.ToLower(it.URL[:i])
}

// Bytes returns the item's inline bytes: the decoded payload of a data:
// URL or of input_audio. Other sources return ok=false.
func (it MediaItem) Bytes() (data []byte, mime string, ok bool, err error) {
	if it.URL == "" {
		b, err := decodeBase64(it.AudioData)
		if err != nil {
			return nil, "", true, badRequest(it.Param+".input_audio.data", "invalid base64: "+err.Error())
		}
		return b, "audio/" + it.AudioFormat, true, nil
	}
	if it.Scheme() != "data" {
		return nil, "", false, nil
	}
	mime, b, err := DecodeDataURL(it.URL)
	if err != nil {
		return nil, "", true, &Error{Kind: ErrBadRequest, Param: it.Param, Msg: err.Error()}
	}
	return b, mime, true, nil
}

// DecodeDataURL decodes an RFC 2397 data: URL: base64 payloads are decoded
// (standard or URL alphabet, padding optional, whitespace ignored), others
// percent-decoded. It returns the media type as written ("" when absent).
func DecodeDataURL(u string) (mime string, data []byte, err error) {
	if len(u) < 5 || !strings.EqualFold(u[:5], "data:") {
		return "", nil, fmt.Errorf("not a data: URL")
	}
	rest := u[5:]
	comma := strings.IndexByte(rest, ',')
	if comma < 0 {
		return "", nil, fmt.Errorf("data: URL without a comma")
	}
	meta, payload := rest[:comma], rest[comma+1:]
	isBase64 := false
	if i := strings.LastIndexByte(meta, ';'); i >= 0 && strings.EqualFold(strings.TrimSpace(meta[i+1:]), "base64") {
		isBase64, meta = true, meta[:i]
	}
	mime = meta
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = mime[:i]
	}
	mime = strings.ToLower(strings.TrimSpace(mime))
	if isBase64 {
		data, err = decodeBase64(payload)
		if err != nil {
			return "", nil, fmt.Errorf("data: URL: invalid base64: %v", err)
		}
		return mime, data, nil
	}
	s, err := url.PathUnescape(payload)
	if err != nil {
		return "", nil, fmt.Errorf("data: URL: %v", err)
	}
	return mime, []byte(s), nil
}

func decodeBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, " \t\r\n%") {
		if strings.Contains(s, "%") {
			if u, err := url.PathUnescape(s); err == nil {
				s = u
			}
		}
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// ContentHash is an item's content hash as the worker protocol defines it:
// BLAKE3 of the lower-case hex string of BLAKE3 of the raw media bytes.
func ContentHash(data []byte) [32]byte {
	inner := blake3.Sum256(data)
	return blake3.Sum256([]byte(hex.EncodeToString(inner[:])))
}
