package refworker

import (
	"github.com/mmgate/mmgate/engine/smgwire"
	commonpb "github.com/mmgate/mmgate/proto/common"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// vllmPixels is the message's name of the encoder input; with modality
// VIDEO the servicer renames it (and keys naming it) pixel_values_videos.
const vllmPixels = "pixel_values"

// readMM reads mm's tensors in the servicer's order (pixel_values, then the
// side tensors), splits them into items by their field layout and checks
// each item. nil mm: a text request.
func (v *VLLMServer) readMM(mm *vllmpb.MultimodalInputs, ids []uint32) ([]received, error) {
	if mm == nil {
		return nil, nil
	}
	video := mm.GetModality() == commonpb.Modality_VIDEO
	key := func(k string) string {
		if video && k == vllmPixels {
			return "pixel_values_videos"
		}
		return k
	}
	side := mm.GetModelSpecificTensors()
	ts := map[string]tensor.Tensor{}
	var open views
	defer func() { open.close() }()
	for _, name := range append([]string{vllmPixels}, sortedKeys(side)...) {
		td := side[name]
		if name == vllmPixels {
			td = mm.GetPixelValues()
		}
		switch td.GetDtype() {
		case "float32", "int64", "uint32":
		default:
			// Refused before it is read: its file stays for the gateway.
			return nil, invalid("Unsupported proto tensor dtype: %q (%s)", td.GetDtype(), name)
		}
		vw, err := v.s.readTensor(name, smgwire.Wire(td))
		if err != nil {
			return nil, readStatus(err)
		}
		open = append(open, vw)
		ts[key(name)] = vw.Tensor
	}
	n := len(mm.GetMmPlaceholders())
	if n == 0 {
		return nil, invalid("mm_inputs without mm_placeholders: no items")
	}
	l := splitLayout{batched: map[string]bool{}, flat: map[string]string{}}
	for _, k := range mm.GetBatchedKeys() {
		l.batched[key(k)] = true
	}
	for k, sizes := range mm.GetFlatKeys() {
		l.flat[key(k)] = key(sizes)
	}
	parts, err := splitItems(ts, l, n)
	if err != nil {
		return nil, err
	}
	items := make([]item, n)
	for k, p := range mm.GetMmPlaceholders() {
		items[k] = item{
			modality: vllmModality(mm.GetModality()), primary: parts[k][key(vllmPixels)], path: open[0].Path,
			side: sideOf(parts[k], key(vllmPixels)), ranges: []span{{int(p.GetOffset()), int(p.GetLength())}},
			pad: mm.ImTokenId, structural: true,
		}
	}
	recv, err := v.s.checkAll(items, ids)
	if err != nil {
		return nil, err
	}
	return recv, checkHashes(mm.GetMmHashes(), recv)
}

// checkHashes refuses hashes that are not one per item, and one hash given
// to items with different pixels: the engine would reuse the first item's
// encoder output for the other.
func checkHashes(hashes []string, items []received) error {
	if len(hashes) == 0 {
		return nil
	}
	if len(hashes) != len(items) {
		return invalid("%d mm_hashes for %d items", len(hashes), len(items))
	}
	seen := map[string]string{}
	for i, h := range hashes {
		if fp, ok := seen[h]; ok && fp != items[i].Fingerprint {
			return invalid("mm_hashes[%d] %q names two items with different pixels", i, h)
		}
		seen[h] = items[i].Fingerprint
	}
	return nil
}

// vllmModality is the item modality of a request's modality (unspecified
// is treated as image, as the servicer does).
func vllmModality(m commonpb.Modality) vision.Modality {
	if m == commonpb.Modality_MODALITY_UNSPECIFIED {
		return vision.Image
	}
	mod, _ := smgwire.ModalityIn(m)
	return mod
}

// discard reads and drops every shm tensor of mm (a request refused before
// its media were read).
func (v *VLLMServer) discard(mm *vllmpb.MultimodalInputs) {
	if mm == nil {
		return
	}
	v.s.drop(smgwire.Wire(mm.GetPixelValues()))
	for _, name := range sortedKeys(mm.GetModelSpecificTensors()) {
		v.s.drop(smgwire.Wire(mm.GetModelSpecificTensors()[name]))
	}
}
