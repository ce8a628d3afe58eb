package prompt

import (
	"encoding/hex"
	"fmt"
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

// ContentHash is an item's content hash as the worker protocol defines it:
// BLAKE3 of the lower-case hex string of BLAKE3 of the raw media bytes.
func ContentHash(data []byte) [32]byte { return ContentHashOf(blake3.Sum256(data)) }

// ContentHashOf is ContentHash of media whose BLAKE3 digest is digest.
func ContentHashOf(digest [32]byte) [32]byte {
	return blake3.Sum256([]byte(hex.EncodeToString(digest[:])))
}
