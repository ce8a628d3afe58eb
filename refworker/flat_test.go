package refworker

import (
	"context"
	"testing"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// flatImages is a neutral request carrying images of grids 1×gh×gw placed
// back to back in one buffer (a segment with shm.ModeShm), as the gateway
// places them for vLLM and SGLang, in a prompt of pad runs; it returns
// each image's pixel bytes.
func (e *env) flatImages(t *testing.T, mode shm.Mode, grids ...[2]int) (*protocol.Request, [][]byte) {
	t.Helper()
	var pads []int
	rows := 0
	for _, g := range grids {
		pads = append(pads, g[0]*g[1]/4)
		rows += g[0] * g[1]
	}
	ids, ranges := promptWith(pads...)
	b := e.pool.NewBatch(context.Background(), "t")
	buf, err := b.Place(shm.Route{Mode: mode, NamespaceMatch: true}, rows*1536*4, "image")
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf.Bytes() {
		buf.Bytes()[i] = byte(i % 253)
	}
	data := append([]byte(nil), buf.Bytes()...)
	whole, err := buf.Payload(tensor.Float32, []int{rows, 1536})
	if err != nil {
		t.Fatal(err)
	}
	b.Commit()
	l := e.srv.model.Model.Layout(vision.Image)
	pad := uint32(151655)
	req := &protocol.Request{ID: "flat", InputIDs: ids, Stream: true, Placement: protocol.LayoutFlat}
	var want [][]byte
	off := 0
	for k, g := range grids {
		n := g[0] * g[1] * 1536 * 4
		var p shm.Payload
		if whole.Shm != nil {
			h := *whole.Shm
			h.Offset, h.NBytes = uint64(off), uint64(n)
			p.Shm = &h
		} else {
			p.Inline = whole.Inline[off : off+n]
		}
		want = append(want, data[off:off+n])
		off += n
		grid := family.GridTensor("image_grid_thw", [3]int64{1, int64(g[0]), int64(g[1])})
		r := protocol.Range{Offset: int(ranges[k].GetOffset()), Length: int(ranges[k].GetLength())}
		req.Media = append(req.Media, protocol.MediaItem{
			Modality: vision.Image, PadToken: &pad, Placeholders: []protocol.Range{r}, Structural: r,
			CacheKey: sha(want[k]), Raw: []byte{byte(k + 1)},
			Input:  protocol.Tensor{Name: l.Primary, DType: tensor.Float32, Shape: []int{g[0] * g[1], 1536}, Payload: p},
			Side:   []protocol.Tensor{protocol.InlineTensor(grid.Name, grid.DType, grid.Shape, grid.Data)},
			Fields: protocol.Fields{Sizes: l.Sizes, Batched: l.Batched, KeepOnCPU: l.KeepOnCPU},
		})
	}
	return req, want
}
