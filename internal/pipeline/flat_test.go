package pipeline

import (
	"encoding/hex"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// TestIdentify: the cache key is the media's BLAKE3 digest (as SMG sends
// mm_hashes) for the model's default processing, and another key for each
// other setting; the content hash is the protocol's.
func TestIdentify(t *testing.T) {
	data := []byte("jpeg bytes")
	d := blake3.Sum256(data)
	var a, b, c prepared
	identify(&a, data, imageSettings(vision.Overrides{}))
	identify(&b, data, imageSettings(vision.Overrides{MaxPixels: 1 << 20}))
	identify(&c, data, videoSettings(vision.VideoOverrides{FPS: 1}))
	if a.key != hex.EncodeToString(d[:]) || a.hash != prompt.ContentHash(data) {
		t.Errorf("default key %s hash %x", a.key, a.hash)
	}
	if b.key == a.key || c.key == a.key || b.key == c.key || b.hash != a.hash {
		t.Errorf("keys %s %s %s", a.key, b.key, c.key)
	}
	if videoSettings(vision.VideoOverrides{}) != "" {
		t.Error("default video settings named")
	}
}

func TestSubPayload(t *testing.T) {
	buf := make([]byte, 10)
	p := subPayload(shm.Payload{Inline: buf}, 4, 3)
	if len(p.Inline) != 3 || &p.Inline[0] != &buf[4] || cap(p.Inline) != 6 {
		t.Errorf("inline %v", p)
	}
	h := subPayload(shm.Payload{Shm: &shm.Handle{Name: "s", Offset: 8, NBytes: 10, Owner: "o"}}, 4, 3)
	if *h.Shm != (shm.Handle{Name: "s", Offset: 12, NBytes: 3, Owner: "o"}) {
		t.Errorf("shm %+v", h.Shm)
	}
	if _, err := exactly(buf[:4])(5); err == nil {
		t.Error("a wrong size was allocated")
	}
}
