package refworker

import (
	"slices"

	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// sglangPixels is the message's name of the encoder input.
const sglangPixels = "pixel_values"

// readMM reads the whole-batch image item of mm and divides it into images
// by the model family's image layout (the sizes tensor cuts the pixels,
// batched tensors give one row per image), each with its pad run and raw
// bytes, then checks each image. nil mm: a text request.
func (x *SGLangServer) readMM(mm *sglangpb.MultimodalInputs, ids []uint32) ([]received, error) {
	if mm == nil {
		return nil, nil
	}
	ts := map[string]tensor.Tensor{}
	side := mm.GetModelSpecificTensors()
	for _, name := range append([]string{sglangPixels}, sortedKeys(side)...) {
		td := side[name]
		if name == sglangPixels {
			td = mm.GetPixelValues()
		}
		if td.GetDtype() != "float32" && td.GetDtype() != "int64" {
			return nil, invalid("%s: dtype %q would be read as float32 by the servicer", name, td.GetDtype())
		}
		v, err := x.s.readTensor(name, shm.Wire{DType: td.GetDtype(), Shape: td.GetShape(), Kind: shm.InlinePayload, Inline: td.GetData()})
		if err != nil {
			return nil, readStatus(err)
		}
		ts[name] = v.Tensor
	}
	l := x.s.model.Model.Layout(vision.Image)
	split := splitLayout{batched: map[string]bool{}, flat: map[string]string{}}
	for _, k := range l.Batched {
		split.batched[k] = true
	}
	n := 0
	if pv := ts[sglangPixels]; len(pv.Shape) > 0 {
		n = pv.Shape[0]
	}
	if l.Sizes == "" {
		split.batched[sglangPixels] = true // one row per image
	} else {
		split.flat[sglangPixels] = l.Sizes
		n = 0
		if st, ok := ts[l.Sizes]; ok && len(st.Shape) > 0 {
			n = st.Shape[0]
		}
	}
	runs := mm.GetMmPlaceholders()
	switch {
	case n == 0 || len(runs) != n:
		return nil, invalid("%d placeholder runs for %d images: cannot divide the batch (one pad run per image)", len(runs), n)
	case len(mm.GetImageData()) != n || slices.ContainsFunc(mm.GetImageData(), func(b []byte) bool { return len(b) == 0 }):
		return nil, invalid("%d raw images for %d images", len(mm.GetImageData()), n)
	case !slices.Equal(mm.GetModalities(), []string{"image"}):
		return nil, invalid("modalities %q: the protocol carries images only", mm.GetModalities())
	}
	parts, err := splitItems(ts, split, n)
	if err != nil {
		return nil, err
	}
	items := make([]item, n)
	for k, p := range runs {
		items[k] = item{
			modality: vision.Image, primary: parts[k][sglangPixels], path: shm.PathInline,
			side: sideOf(parts[k], sglangPixels), ranges: []span{{int(p.GetOffset()), int(p.GetLength())}}, pad: mm.ImTokenId,
			encoded: mm.GetImageData()[k],
		}
	}
	return x.s.checkAll(items, ids)
}
