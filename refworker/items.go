package refworker

import (
	"fmt"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// received is one multimodal item after it was read and checked: what the
// reply describes.
type received struct {
	Modality    vision.Modality
	Summary     family.Summary // what the model's family reports (the grid, …)
	DType       tensor.DType
	Path        shm.Path
	Fingerprint string
	Tokens      int // embedding positions over all ranges
	// ranges and pad are where the item's embeddings go (item's).
	ranges []span
	pad    *uint32
}

// item is one media item as a protocol's layer read it, before the checks
// every protocol makes.
type item struct {
	modality vision.Modality
	// primary is the encoder input (its Data valid during the check), path
	// how it travelled.
	primary tensor.Tensor
	path    shm.Path
	side    []family.NamedTensor
	// ranges are where the item sits in the prompt; pad, when set, the
	// token its embeddings replace. With structural set the ranges may hold
	// other tokens (only pads count); otherwise they hold pads only.
	ranges     []span
	pad        *uint32
	structural bool
	// encoded is the item's encoded media bytes, for a protocol that
	// carries them (SGLang's image_data); nil otherwise.
	encoded []byte
}

// span is a range of prompt tokens.
type span struct{ off, n int }

// invalid is the status the real worker answers for a request it refuses.
func invalid(format string, a ...any) error {
	return status.Errorf(codes.InvalidArgument, format, a...)
}

// check makes the checks of item i that every protocol shares: a modality
// the model takes, ranges inside the prompt over the pad token, a float
// encoder input, and the model family's check of the side tensors against
// the pixels and the embedding positions. It fingerprints the pixels.
func (s *Server) check(i int, it item, ids []uint32) (received, error) {
	r := received{Modality: it.modality, DType: it.primary.DType, Path: it.path, ranges: it.ranges, pad: it.pad}
	if !slices.Contains(s.model.takes, it.modality) {
		return r, invalid("item %d: modality %v is not supported by this model", i, it.modality)
	}
	if len(it.ranges) == 0 {
		return r, invalid("item %d: no placeholder ranges", i)
	}
	for _, p := range it.ranges {
		if p.n <= 0 || p.off < 0 || p.off+p.n > len(ids) {
			return r, invalid("item %d: placeholder range (%d, %d) outside the %d-token prompt", i, p.off, p.n, len(ids))
		}
		if it.pad == nil {
			r.Tokens += p.n
			continue
		}
		for _, id := range ids[p.off : p.off+p.n] {
			switch {
			case id == *it.pad:
				r.Tokens++
			case !it.structural:
				return r, invalid("item %d: token %d inside placeholder range (%d, %d) is not the pad token %d", i, id, p.off, p.n, *it.pad)
			}
		}
	}
	if !it.primary.DType.IsFloat() {
		return r, invalid("item %d: encoder_input dtype %v is not a float type", i, it.primary.DType)
	}
	got := family.Received{Modality: it.modality, Primary: it.primary, Side: it.side, Tokens: r.Tokens}
	var err error
	if r.Summary, err = s.model.Model.CheckReceived(got); err != nil {
		return r, invalid("item %d: %v", i, err)
	}
	own := it.primary.Data
	if n := r.Summary.Unpadded; n > 0 && n <= len(own) {
		own = own[:n]
	}
	r.Fingerprint = s.fingerprint(own)
	if it.encoded != nil {
		// The encoded bytes are fingerprinted too: they must be the
		// client's, intact, when the request arrives.
		note := fmt.Sprintf("encoded %d bytes, %s %s", len(it.encoded), s.opts.Fingerprint, s.fingerprint(it.encoded))
		r.Summary.Notes = append(slices.Clip(r.Summary.Notes), note)
	}
	return r, nil
}

// checkAll checks every item and that no two items claim one embedding
// position (a pad token inside their ranges, or any token of ranges
// without a pad token). Structural ranges may share other tokens, as
// vLLM's own do where the tokenizer merges the text around two adjacent
// items (Gemma 3's "\n\n" + "\n\n" is one token).
func (s *Server) checkAll(items []item, ids []uint32) ([]received, error) {
	out := make([]received, 0, len(items))
	claimed := make([]bool, len(ids))
	for i, it := range items {
		r, err := s.check(i, it, ids)
		if err != nil {
			return nil, err
		}
		for _, p := range it.ranges {
			for k := p.off; k < p.off+p.n; k++ {
				if it.pad != nil && ids[k] != *it.pad {
					continue
				}
				if claimed[k] {
					return nil, invalid("placeholder ranges overlap at token %d", k)
				}
				claimed[k] = true
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// readTensor reads one tensor as the worker receives it (an shm segment is
// unlinked once read); its bytes are valid until the view is closed.
func (s *Server) readTensor(name string, w shm.Wire) (*shm.View, error) {
	v, err := s.reader.Read(w)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// copied is a small tensor's view copied out of its mapping, the view
// closed.
func copied(name string, v *shm.View) family.NamedTensor {
	t := v.Tensor
	t.Data = append([]byte(nil), v.Data...)
	v.Close()
	return family.NamedTensor{Name: name, Tensor: t}
}

// drop reads and drops tensors, so that shm segments with an accepted
// prefix are unlinked even though the request was refused.
func (s *Server) drop(ws ...shm.Wire) {
	for _, w := range ws {
		if w.Kind == shm.ShmPayload {
			if v, err := s.reader.Read(w); err == nil {
				v.Close()
			}
		}
	}
}
