package pipeline

import (
	"context"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/zeebo/blake3"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// prepared is one media item: planned from its headers by the probe, then
// (gateway) processed into its destination for the picked worker.
type prepared struct {
	modality prompt.Modality
	param    string // the request field it came from, for messages
	plan     vision.Plan
	video    *vision.VideoPlan // videos only
	probed   *video.Info       // videos only: the stream the plan was made from
	hash     [32]byte          // prompt.ContentHash of the media bytes
	key      string            // cache key: see identify
	side     []family.NamedTensor
	// media holds the bytes from the probe until the item is processed
	// (gateway), and on until the request is sent for a protocol that
	// wants them (Capabilities.RawMedia); nil otherwise. They may come
	// from the request body's buffers, which must not outlive the request.
	media *fetch.Media
	// Set when processed: the encoder input as placed, and its path.
	input protocol.Tensor
	path  shm.Path
}

// item is the planned item as the model's family sees it.
func (pr *prepared) item() family.Item {
	if pr.video != nil {
		return family.VideoItem(pr.video)
	}
	return family.ImageItem(pr.plan)
}

// bytes is the item's encoder input size in dt.
func (pr *prepared) bytes(dt tensor.DType) int {
	if pr.video != nil {
		return pr.video.Bytes(dt)
	}
	return pr.plan.Bytes(dt)
}

// shape is the item's encoder input shape.
func (pr *prepared) shape() []int {
	if pr.video != nil {
		return pr.video.Shape()
	}
	return pr.plan.Shape()
}

// releaseMedia gives back the items' media bytes: once processed (unless
// the worker wants them), once the request is sent, or when it failed.
func releaseMedia(items []prepared) {
	for i := range items {
		items[i].media.Release()
		items[i].media = nil
	}
}

// stageTimes accumulates per-stage wall time over a request's items.
type stageTimes struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

func (s *stageTimes) add(stage string, d time.Duration) {
	s.mu.Lock()
	if s.d == nil {
		s.d = map[string]time.Duration{}
	}
	s.d[stage] += d
	s.mu.Unlock()
}

func (s *stageTimes) snapshot() map[string]time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]time.Duration, len(s.d))
	for k, v := range s.d {
		out[k] = v
	}
	return out
}

// mediaJob is what processing a request's media needs: the model, where
// its tensors go (dtype, route, the request's segments), its settings.
type mediaJob struct {
	a     *Assets
	dt    tensor.DType
	route shm.Route
	batch *shm.Batch
	ov    vision.Overrides
	vov   vision.VideoOverrides
	times *stageTimes
}

// identify sets pr's content hash and cache key from the media bytes: the
// key is the hex BLAKE3 digest of the bytes, or, when the request changes
// the processing (settings not ""), the digest of that and the settings,
// so that one key always means one encoder input.
func identify(pr *prepared, data []byte, settings string) {
	d := blake3.Sum256(data)
	pr.hash = prompt.ContentHashOf(d)
	pr.key = hex.EncodeToString(d[:])
	if settings != "" {
		k := blake3.Sum256([]byte(pr.key + "|" + settings))
		pr.key = hex.EncodeToString(k[:])
	}
}

// imageSettings names non-default image processing ("" for none).
func imageSettings(ov vision.Overrides) string {
	if ov == (vision.Overrides{}) {
		return ""
	}
	return fmt.Sprintf("min_pixels=%d,max_pixels=%d", ov.MinPixels, ov.MaxPixels)
}

// videoSettings names non-default video processing ("" for none).
func videoSettings(o vision.VideoOverrides) string {
	if o == (vision.VideoOverrides{}) {
		return ""
	}
	return fmt.Sprintf("fps=%g,num_frames=%d,min_pixels=%d,max_pixels=%d,total_pixels=%g", o.FPS, o.NumFrames, o.MinPixels, o.MaxPixels, o.TotalPixels)
}

// checkImage refuses an image item the model cannot take.
func checkImage(a *Assets, item prompt.MediaItem) error {
	if item.Modality != prompt.Image {
		return &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: item.Modality.String() + " is not supported for this model"}
	}
	if a.Prep == nil {
		return &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: "this model takes no images"}
	}
	return nil
}

// errNoVideo refuses a video item for a model that takes no videos.
func errNoVideo(item prompt.MediaItem) error {
	return &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: "video is not supported for this model"}
}

// heavy runs f on the heavy pool when there is one.
func (p *Pipeline) heavy(ctx context.Context, f func()) error {
	if p.opts.Heavy != nil {
		return p.opts.Heavy.Run(ctx, f)
	}
	f()
	return nil
}

// observe records a stage time for the request and in the metrics.
func (p *Pipeline) observe(times *stageTimes, stage string, d time.Duration) {
	times.add(stage, d)
	p.m.stage.WithLabelValues(stage).Observe(d.Seconds())
}

// observeImage records an image's stage times.
func (p *Pipeline) observeImage(t imageprep.Timings, times *stageTimes) {
	p.observe(times, "decode", t.Decode)
	p.observe(times, "resize", t.Resize)
	p.observe(times, "normalize_patchify", t.NormalizePatchify)
}

// observeVideo records a video's stage times.
func (p *Pipeline) observeVideo(t videoprep.Timings, times *stageTimes) {
	p.observe(times, "decode", t.Decode)
	p.observe(times, "resize", t.Resize)
	p.observe(times, "normalize_patchify", t.NormalizePatchify)
}

// expansions lays each item out in the prompt as the model's family says.
func expansions(items []prepared, a *Assets) []prompt.Expansion {
	exp := make([]prompt.Expansion, len(items))
	for i := range items {
		exp[i] = a.Model.Expansion(items[i].item())
	}
	return exp
}

// modalityOf is the vision modality of a planned item.
func modalityOf(m prompt.Modality) vision.Modality {
	if m == prompt.Video {
		return vision.Video
	}
	return vision.Image
}
