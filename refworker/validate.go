package refworker

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// received is one multimodal item after it was read and checked.
type received struct {
	Modality         commonpb.Modality
	Grid             [3]int64
	DType            tensor.DType
	Path             shm.Path
	Bytes            int
	Fingerprint      string
	Placeholders     int // number of ranges
	Tokens           int // placeholder tokens over all ranges
	SecondPerGridTS  []float32
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
	gridKey := ""
	switch r.Modality {
	case commonpb.Modality_IMAGE:
		gridKey = "image_grid_thw"
	case commonpb.Modality_VIDEO:
		gridKey = "video_grid_thw"
	default:
		s.discardItem(it)
		return r, invalid("item %d: modality %v is not supported by this model", i, r.Modality)
	}
	if !s.supports(r.Modality) {
		s.discardItem(it)
		return r, invalid("item %d: modality %v is not supported by this model", i, r.Modality)
	}

	// Placeholders: non-empty, positive lengths, inside the prompt, over pad tokens.
	phs := it.GetPlaceholders()
	if len(phs) == 0 {
		s.discardItem(it)
		return r, invalid("item %d: no placeholder ranges", i)
	}
	if it.PlaceholderTokenId != nil {
		r.PlaceholderToken = it.GetPlaceholderTokenId()
		if prev, ok := pads[r.Modality]; ok && prev != r.PlaceholderToken {
			s.discardItem(it)
			return r, invalid("item %d: placeholder_token_id %d conflicts with %d for %v", i, r.PlaceholderToken, prev, r.Modality)
		}
		pads[r.Modality] = r.PlaceholderToken
	}
	for _, p := range phs {
		off, n := int(p.GetOffset()), int(p.GetLength())
		if n <= 0 || off < 0 || off+n > len(ids) {
			s.discardItem(it)
			return r, invalid("item %d: placeholder range (%d, %d) outside the %d-token prompt", i, off, n, len(ids))
		}
		if it.PlaceholderTokenId != nil {
			for _, id := range ids[off : off+n] {
				if id != r.PlaceholderToken {
					s.discardItem(it)
					return r, invalid("item %d: token %d inside placeholder range (%d, %d) is not the pad token %d", i, id, off, n, r.PlaceholderToken)
				}
			}
		}
		r.Tokens += n
	}
	r.Placeholders = len(phs)

	// Side tensors: exactly the grid of this modality, int64 with 3 values.
	side := it.GetModelSpecificTensors()
	other := map[string]string{"image_grid_thw": "video_grid_thw", "video_grid_thw": "image_grid_thw"}[gridKey]
	if _, bad := side[other]; bad {
		s.discardItem(it)
		return r, invalid("item %d: a %v item must not carry %s", i, r.Modality, other)
	}
	gt, ok := side[gridKey]
	if !ok {
		s.discardItem(it)
		return r, invalid("item %d: missing %s", i, gridKey)
	}
	grid, err := s.readGrid(gt)
	if err != nil {
		s.discardItem(it)
		return r, invalid("item %d: %s: %v", i, gridKey, err)
	}
	r.Grid = grid
	if ts, ok := side["second_per_grid_ts"]; ok {
		v, err := s.reader.Read(ts)
		if err != nil {
			s.discardItem(it)
			return r, invalid("item %d: second_per_grid_ts: %v", i, err)
		}
		if v.DType != tensor.Float32 {
			v.Close()
			s.discardItem(it)
			return r, invalid("item %d: second_per_grid_ts must be float32, not %v", i, v.DType)
		}
		for k := 0; k+4 <= len(v.Data); k += 4 {
			r.SecondPerGridTS = append(r.SecondPerGridTS, float32frombits(binary.LittleEndian.Uint32(v.Data[k:])))
		}
		v.Close()
	}

	// The encoder input: a float tensor [rows, cols] with rows = t·h·w, and
	// placeholder tokens = rows / merge².
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
	if len(view.Shape) != 2 {
		return r, invalid("item %d: encoder_input shape %v is not [rows, cols]", i, view.Shape)
	}
	rows := grid[0] * grid[1] * grid[2]
	if int64(view.Shape[0]) != rows {
		return r, invalid("item %d: encoder_input has %d rows, grid %dx%dx%d needs %d", i, view.Shape[0], grid[0], grid[1], grid[2], rows)
	}
	m2 := int64(s.model.MergeSize * s.model.MergeSize)
	if rows%m2 != 0 || int64(r.Tokens) != rows/m2 {
		return r, invalid("item %d: %d placeholder tokens, grid %dx%dx%d needs %d", i, r.Tokens, grid[0], grid[1], grid[2], rows/m2)
	}
	r.Fingerprint = s.fingerprint(view.Data)
	return r, nil
}

// readGrid reads an int64 [1,3] (or [3]) grid with positive values.
func (s *Server) readGrid(td *schedulerpb.TensorData) ([3]int64, error) {
	var g [3]int64
	v, err := s.reader.Read(td)
	if err != nil {
		return g, err
	}
	defer v.Close()
	if v.DType != tensor.Int64 || len(v.Data) != 24 {
		return g, fmt.Errorf("want int64 [1, 3], have %v %v", v.DType, v.Shape)
	}
	for k := range g {
		g[k] = int64(binary.LittleEndian.Uint64(v.Data[8*k:]))
		if g[k] <= 0 || g[k] > 1<<20 {
			return g, fmt.Errorf("grid value %d out of range", g[k])
		}
	}
	return g, nil
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

func (s *Server) supports(m commonpb.Modality) bool {
	for _, x := range s.model.Modalities {
		if x == m {
			return true
		}
	}
	return false
}
