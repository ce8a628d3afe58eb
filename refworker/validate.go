package refworker

import (
	"context"
	"fmt"
	"sort"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/family"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// received is one multimodal item after it was read and checked.
type received struct {
	Modality         commonpb.Modality
	Summary          family.Summary // what the model's family reports (the grid, …)
	DType            tensor.DType
	Path             shm.Path
	Bytes            int
	Fingerprint      string
	Placeholders     int // number of ranges
	Tokens           int // placeholder tokens over all ranges
	PlaceholderToken uint32
}

// invalid is the status the real worker answers for a request it refuses.
func invalid(format string, a ...any) error {
	return status.Errorf(codes.InvalidArgument, format, a...)
}

// encode runs readItems through Options.Encode when there is one and the
// request has tensors. A request canceled while it waits for its turn has its
// tensors dropped.
func (s *Server) encode(ctx context.Context, req *schedulerpb.GenerateRequest) ([]received, error) {
	if s.opts.Encode == nil || len(req.GetMmInputs().GetItems()) == 0 {
		return s.readItems(req)
	}
	var (
		items []received
		err   error
	)
	if rerr := s.opts.Encode(ctx, func() { items, err = s.readItems(req) }); rerr != nil {
		s.discard(req.GetMmInputs().GetItems())
		if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		return nil, status.Errorf(codes.Unavailable, "encoder: %v", rerr)
	}
	return items, err
}

// readItems checks every multimodal item of req against the prompt and reads
// its tensors (which unlinks shm segments). On a refusal it still reads and
// drops the tensors it did not get to, so that their segments do not outlive
// the request on this side.
func (s *Server) readItems(req *schedulerpb.GenerateRequest) ([]received, error) {
	items := req.GetMmInputs().GetItems()
	ids := req.GetTokenized().GetInputIds()
	out := make([]received, 0, len(items))
	var spans [][2]int
	padByModality := map[commonpb.Modality]uint32{}
	for i, it := range items {
		r, err := s.readItem(i, it, ids, padByModality)
		if err != nil {
			s.discard(items[i+1:])
			return nil, err
		}
		for _, p := range it.GetPlaceholders() {
			spans = append(spans, [2]int{int(p.GetOffset()), int(p.GetOffset() + p.GetLength())})
		}
		out = append(out, r)
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a][0] < spans[b][0] })
	for k := 1; k < len(spans); k++ {
		if spans[k][0] < spans[k-1][1] {
			return nil, invalid("placeholder ranges overlap at token %d", spans[k][0])
		}
	}
	return out, nil
}

func (s *Server) readItem(i int, it *schedulerpb.MultimodalItem, ids []uint32, pads map[commonpb.Modality]uint32) (received, error) {
	r := received{Modality: it.GetModality()}
	mod, ok := s.model.media(r.Modality)
	if !ok {
		s.discardItem(it)
		return r, invalid("item %d: modality %v is not supported by this model", i, r.Modality)
	}
	if err := checkRanges(i, it, ids, pads, &r); err != nil {
		s.discardItem(it)
		return r, err
	}
	side, err := s.readSide(it)
	if err != nil {
		s.discardItem(it)
		return r, invalid("item %d: %v", i, err)
	}

	// The encoder input: a float tensor whose shape the model's family
	// checks against the side tensors and the placeholder tokens.
	enc := it.GetEncoderInput()
	if enc == nil {
		return r, invalid("item %d: missing encoder_input", i)
	}
	view, err := s.reader.Read(enc)
	if err != nil {
		return r, invalid("item %d: encoder_input: %v", i, err)
	}
	defer view.Close()
	r.DType, r.Path, r.Bytes = view.DType, view.Path, len(view.Data)
	if !view.DType.IsFloat() {
		return r, invalid("item %d: encoder_input dtype %v is not a float type", i, view.DType)
	}
	got := family.Received{Modality: mod, Primary: view.Tensor, Side: side, Tokens: r.Tokens}
	if r.Summary, err = s.model.Model.CheckReceived(got); err != nil {
		return r, invalid("item %d: %v", i, err)
	}
	r.Fingerprint = s.fingerprint(view.Data)
	return r, nil
}

// checkRanges checks an item's placeholder ranges: present, positive
// lengths, inside the prompt, over its pad token (one pad id per
// modality), and counts their tokens into r.
func checkRanges(i int, it *schedulerpb.MultimodalItem, ids []uint32, pads map[commonpb.Modality]uint32, r *received) error {
	phs := it.GetPlaceholders()
	if len(phs) == 0 {
		return invalid("item %d: no placeholder ranges", i)
	}
	if it.PlaceholderTokenId != nil {
		r.PlaceholderToken = it.GetPlaceholderTokenId()
		if prev, ok := pads[r.Modality]; ok && prev != r.PlaceholderToken {
			return invalid("item %d: placeholder_token_id %d conflicts with %d for %v", i, r.PlaceholderToken, prev, r.Modality)
		}
		pads[r.Modality] = r.PlaceholderToken
	}
	for _, p := range phs {
		off, n := int(p.GetOffset()), int(p.GetLength())
		if n <= 0 || off < 0 || off+n > len(ids) {
			return invalid("item %d: placeholder range (%d, %d) outside the %d-token prompt", i, off, n, len(ids))
		}
		if it.PlaceholderTokenId != nil {
			for _, id := range ids[off : off+n] {
				if id != r.PlaceholderToken {
					return invalid("item %d: token %d inside placeholder range (%d, %d) is not the pad token %d", i, id, off, n, r.PlaceholderToken)
				}
			}
		}
		r.Tokens += n
	}
	r.Placeholders = len(phs)
	return nil
}

// readSide reads every side tensor of an item (which unlinks shm
// segments), in name order. The tensors are small: their bytes are copied
// out of the mapping.
func (s *Server) readSide(it *schedulerpb.MultimodalItem) ([]family.NamedTensor, error) {
	m := it.GetModelSpecificTensors()
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]family.NamedTensor, 0, len(names))
	var first error
	for _, name := range names {
		v, err := s.reader.Read(m[name])
		if err != nil {
			if first == nil {
				first = fmt.Errorf("%s: %v", name, err)
			}
			continue
		}
		t := v.Tensor
		t.Data = append([]byte(nil), v.Data...)
		v.Close()
		out = append(out, family.NamedTensor{Name: name, Tensor: t})
	}
	return out, first
}

// discard reads and drops every tensor of items, so that shm segments with an
// accepted prefix are unlinked even though the request was refused.
func (s *Server) discard(items []*schedulerpb.MultimodalItem) {
	for _, it := range items {
		s.discardItem(it)
	}
}

func (s *Server) discardItem(it *schedulerpb.MultimodalItem) {
	if td := it.GetEncoderInput(); td != nil && td.GetShm() != nil {
		if v, err := s.reader.Read(td); err == nil {
			v.Close()
		}
	}
	for _, td := range it.GetModelSpecificTensors() {
		if td.GetShm() != nil {
			if v, err := s.reader.Read(td); err == nil {
				v.Close()
			}
		}
	}
}
