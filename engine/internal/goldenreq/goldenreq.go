// Package goldenreq builds, for the protocol packages' tests, the neutral
// requests behind the golden vLLM and SGLang encodings of proto/testdata:
// the same media preprocessed by mmgate's own processors and laid out as
// the gateway lays them out, so that each protocol's encoding of them can be
// compared field by field with the upstream-built message.
package goldenreq

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/zeebo/blake3"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/proto/prototest"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Qwen token ids the goldens use.
const (
	ImagePad    = 151655
	VideoPad    = 151656
	VisionStart = 151652
)

// TwoImages is the prompt and the two images of the image goldens: each
// image (raw bytes, as the SGLang golden carries them) preprocessed for
// Qwen2.5-VL with min_pixels 784 into one float32 buffer, back to back
// (protocol.LayoutFlat), with the family's side tensors and field layout,
// pad runs, cache keys and raw bytes. Sampling is left to the caller.
func TwoImages(t testing.TB, raw [][]byte) (*protocol.Request, prototest.ImageFacts) {
	t.Helper()
	var f prototest.ImageFacts
	loadFacts(t, "sglang_generate_images.binpb", &f)
	m, err := builtin.New().Open("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	proc, err := m.ImageProcessor(vision.ProcessorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pre, err := imageprep.New(imageprep.Options{Decoder: imageprep.MediaDecoder(dec), Processor: proc})
	if err != nil {
		t.Fatal(err)
	}
	ov := vision.Overrides{MinPixels: 784}
	plans := make([]vision.Plan, len(raw))
	total := 0
	for i, b := range raw {
		if plans[i], err = pre.Plan(b, ov); err != nil {
			t.Fatal(err)
		}
		total += plans[i].Bytes(tensor.Float32)
	}
	buf := make([]byte, total)
	req := &protocol.Request{ID: "", InputIDs: f.InputIDs, Text: f.OriginalText, Placement: protocol.LayoutFlat}
	off := 0
	for i, b := range raw {
		n := plans[i].Bytes(tensor.Float32)
		dst := buf[off : off+n]
		off += n
		res, err := pre.Image(context.Background(), imageprep.Request{Data: b, Overrides: ov, DType: tensor.Float32,
			Alloc: func(int) ([]byte, error) { return dst, nil }})
		if err != nil {
			t.Fatal(err)
		}
		it := family.ImageItem(res.Plan)
		req.Media = append(req.Media, item(m, it, res.Shape(), dst, b, ImagePad, vision.Image))
	}
	runs := padRuns(f.InputIDs, ImagePad)
	for i := range req.Media {
		req.Media[i].Placeholders = []protocol.Range{runs[i]}
		req.Media[i].Structural = runs[i]
	}
	return req, f
}

// item is one media item as the pipeline builds it (ranges are set by the
// caller).
func item(m family.Model, it family.Item, shape []int, data, raw []byte, pad uint32, mod vision.Modality) protocol.MediaItem {
	l := m.Layout(mod)
	mi := protocol.MediaItem{
		Modality: mod,
		Hash:     contentHash(raw),
		PadToken: &pad,
		Input:    protocol.InlineTensor(l.Primary, tensor.Float32, shape, data),
		Raw:      raw,
		CacheKey: digest(raw),
		Fields:   protocol.Fields{Sizes: l.Sizes, Batched: l.Batched, KeepOnCPU: l.KeepOnCPU},
	}
	for _, s := range m.SideTensors(it) {
		mi.Side = append(mi.Side, protocol.InlineTensor(s.Name, s.DType, s.Shape, s.Data))
	}
	return mi
}

// Video is the Qwen3-VL video request of the video golden: the clip
// planned by mmgate's video processor (the frame count and rate the video
// golden of internal/videoprep records), its pixels in the shared-memory
// segment the golden names, the family's side tensors and layout, its pad
// runs and the structural range the family's expansion gives.
func Video(t testing.TB) (*protocol.Request, prototest.VideoFacts) {
	t.Helper()
	var f prototest.VideoFacts
	loadFacts(t, "vllm_generate_video.binpb", &f)
	m, err := builtin.New().Open("qwen3-vl")
	if err != nil {
		t.Fatal(err)
	}
	vp, err := m.VideoProcessor(vision.ProcessorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := vp.PlanVideo(vision.VideoInfo{Width: 96, Height: 64, Frames: 50, FPS: 25}, vision.VideoOverrides{})
	if err != nil {
		t.Fatal(err)
	}
	if g, sh := plan.GridTHW(), plan.Shape(); !slices.Equal(g[:], f.Grid) || len(sh) != 2 || sh[0] != int(f.PixelShape[0]) || sh[1] != int(f.PixelShape[1]) {
		t.Fatalf("plan grid %v shape %v, golden %v %v", g, plan.Shape(), f.Grid, f.PixelShape)
	}
	clip, err := os.ReadFile(filepath.Join(prototest.Root(), f.Clip))
	if err != nil {
		t.Fatal(err)
	}
	it := family.VideoItem(&plan)
	mi := item(m, it, plan.Shape(), nil, clip, VideoPad, vision.Video)
	mi.Raw = nil
	mi.Input.Payload = shm.Payload{Shm: &shm.Handle{Name: f.Shm.Name, NBytes: f.Shm.Nbytes, Owner: f.Shm.OwnerID}}
	res := &prompt.Result{IDs: f.InputIDs}
	for _, r := range padRuns(f.InputIDs, VideoPad) {
		mi.Placeholders = append(mi.Placeholders, r)
		res.Placeholders = append(res.Placeholders, prompt.Placeholder{Item: 0, Offset: r.Offset, Length: r.Length})
	}
	st, ok := res.Structural(0, m.Expansion(it))
	if !ok {
		t.Fatal("no structural range")
	}
	mi.Structural = protocol.Range{Offset: st.Offset, Length: st.Length}
	return &protocol.Request{InputIDs: f.InputIDs, Text: f.OriginalText, Media: []protocol.MediaItem{mi}}, f
}

func loadFacts(t testing.TB, name string, facts any) {
	t.Helper()
	prototest.Facts(t, name, facts)
}

// padRuns are the maximal runs of pad in ids.
func padRuns(ids []uint32, pad uint32) []protocol.Range {
	var out []protocol.Range
	for i := 0; i < len(ids); i++ {
		if ids[i] != pad {
			continue
		}
		j := i
		for j < len(ids) && ids[j] == pad {
			j++
		}
		out = append(out, protocol.Range{Offset: i, Length: j - i})
		i = j
	}
	return out
}

func digest(b []byte) string {
	d := blake3.Sum256(b)
	return hex.EncodeToString(d[:])
}

func contentHash(b []byte) []byte {
	h := prompt.ContentHash(b)
	return h[:]
}

// Ptr is a pointer to v.
func Ptr[T any](v T) *T { return &v }

// SameMessage fails unless got equals want in every field (proto.Equal).
func SameMessage(t testing.TB, what string, want, got proto.Message) {
	t.Helper()
	if !proto.Equal(want, got) {
		t.Errorf("%s differs:\nwant %s\ngot  %s", what, prototext.Format(want), prototext.Format(got))
	}
}

// Decoded is a stream decoded into events: per choice its tokens, the
// tokens its log-probabilities name, and its final event.
type Decoded struct {
	Tokens, LogprobTokens map[int][]uint32
	Done                  map[int]protocol.Event
}

// DecodeAll decodes msgs with decode; check sees each event with the
// tokens its choice had so far.
func DecodeAll[M any](t testing.TB, msgs []M, decode func(M) (protocol.Event, error), check func(ev protocol.Event, tokens []uint32)) Decoded {
	t.Helper()
	d := Decoded{Tokens: map[int][]uint32{}, LogprobTokens: map[int][]uint32{}, Done: map[int]protocol.Event{}}
	for _, m := range msgs {
		ev, err := decode(m)
		if err != nil {
			t.Fatal(err)
		}
		d.Tokens[ev.Index] = append(d.Tokens[ev.Index], ev.Tokens...)
		for _, lp := range ev.Logprobs {
			d.LogprobTokens[ev.Index] = append(d.LogprobTokens[ev.Index], lp.Token)
		}
		check(ev, d.Tokens[ev.Index])
		if ev.Done {
			d.Done[ev.Index] = ev
		}
	}
	return d
}
