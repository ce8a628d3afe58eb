package pipeline

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"slices"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
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

// TestPadBatch: the inputs of a batched encoder input (no sizes tensor)
// that differ in dim 1 are placed at the largest's shape, the rest of each
// range zeroed after the item's own bytes; equal shapes and flat inputs
// are placed as planned; other differences are refused.
func TestPadBatch(t *testing.T) {
	batched := family.Layout{Primary: "pixel_values", Batched: []string{"image_sizes"}}
	slot3 := func(tiles int) slot {
		return slot{shape: []int{1, tiles, 3, 2, 2}, n: tiles * 3 * 2 * 2 * 4,
			fill: func(_ context.Context, _ *slot, dst []byte) error {
				for i := range dst {
					dst[i] = 1
				}
				return nil
			}}
	}
	slots := []slot{slot3(5), slot3(3)}
	if err := padBatch(slots, batched, tensor.Float32); err != nil {
		t.Fatal(err)
	}
	room := 5 * 3 * 2 * 2 * 4
	for i, s := range slots {
		if !slices.Equal(s.shape, []int{1, 5, 3, 2, 2}) || s.room != room {
			t.Errorf("slot %d placed as %v, %d bytes", i, s.shape, s.room)
		}
	}
	dst := bytes.Repeat([]byte{0xff}, 2*room)
	if err := fillSlots(context.Background(), slots, dst); err != nil {
		t.Fatal(err)
	}
	own := 3 * 3 * 2 * 2 * 4
	if !bytes.Equal(dst[:room+own], bytes.Repeat([]byte{1}, room+own)) || !bytes.Equal(dst[room+own:], make([]byte, room-own)) {
		t.Error("the second item's padding is not zero, or an item's bytes were not filled")
	}

	same := []slot{slot3(4), slot3(4)}
	flat := []slot{slot3(5), slot3(3)}
	if err := padBatch(same, batched, tensor.Float32); err != nil || same[1].room != same[1].n {
		t.Errorf("equal shapes: %v, room %d", err, same[1].room)
	}
	if err := padBatch(flat, family.Layout{Primary: "pixel_values", Sizes: "num_patches"}, tensor.Float32); err != nil || flat[1].room != flat[1].n || flat[1].shape[1] != 3 {
		t.Errorf("flat input: %v, %v %d", err, flat[1].shape, flat[1].room)
	}
	odd := []slot{slot3(5), {shape: []int{1, 5, 3, 4, 2}}}
	if err := padBatch(odd, batched, tensor.Float32); !errors.Is(err, engine.ErrUnsupportedParam) {
		t.Errorf("other shapes: %v", err)
	}
}
