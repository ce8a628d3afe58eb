package preprocess

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/tensormem"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/vision"
)

// Runner runs files through a model's image and video pipelines.
type Runner struct {
	o        Options // defaults applied
	images   *imageprep.Preprocessor
	videos   *videoprep.Preprocessor // nil without video support
	videoErr error                   // why videos is nil
	stop     func()                  // stops the video pipeline's threads
	mem      tensormem.Allocator     // where the tensors live
}

// New checks o and builds the pipelines. An *OptionsError reports options
// the caller must fix; any other error, a pipeline that could not be
// built. The Runner must be closed.
func New(o Options) (*Runner, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	images, err := newImages(o)
	if err != nil {
		return nil, err
	}
	r := &Runner{o: o, images: images}
	// A worker's next image reuses the tensor memory of its last one.
	r.mem.Keep = o.Workers
	r.videos, r.stop, r.videoErr = newVideos(o)
	if r.videoErr != nil {
		o.Log.Debug("preprocess: no video support", "error", r.videoErr.Error())
	}
	return r, nil
}

// newImages builds the image pipeline: the model's image processor with
// the memory-releasing resizer, and the Pillow-equivalent decoder.
func newImages(o Options) (*imageprep.Preprocessor, error) {
	rs, err := resample.New(resample.Options{})
	if err != nil {
		return nil, err
	}
	proc, err := o.Model.ImageProcessor(vision.ProcessorOptions{Resizer: releasingResizer{rs}})
	if err != nil {
		return nil, &OptionsError{Flag: "--model", Err: err}
	}
	dec, err := newImageDecoder(o.Background)
	if err != nil {
		return nil, err
	}
	return imageprep.New(imageprep.Options{Decoder: dec, Processor: proc, Concurrency: o.Workers})
}

// Options returns the options the Runner runs with, the defaults applied.
func (r *Runner) Options() Options { return r.o }

// Close stops the video pipeline's threads and unmaps the tensor memory
// kept for reuse.
func (r *Runner) Close() {
	if r.stop != nil {
		r.stop()
	}
	r.mem.Close()
}

// Run preprocesses files and writes their lines to out, in input order
// (see the package documentation). It returns ErrRefused when some input
// was refused, an error wrapping ErrOutput when a line could not be
// written (the others still are), and an *OptionsError, before any line,
// when the files cannot run with these options: two inputs that would
// write the same .npy file, or an OutDir that cannot be created.
func (r *Runner) Run(ctx context.Context, files []string, out io.Writer) error {
	npyPaths, err := r.npyPaths(files)
	if err != nil {
		return err
	}
	start := time.Now()
	order := r.dispatchOrder(files)
	r.warmHeap(files, order)
	lines := make([]any, len(files))
	done := make([]chan struct{}, len(files))
	for i := range done {
		done[i] = make(chan struct{})
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.o.Workers)
	go func() {
		for _, i := range order {
			name := files[i]
			g.Go(func() error {
				defer close(done[i])
				lines[i] = r.one(gctx, name, npyPaths[i])
				return nil
			})
		}
	}()
	var refused, werr error
	for i, name := range files {
		<-done[i]
		if _, ok := lines[i].(ErrorLine); ok {
			refused = ErrRefused
		}
		if err := writeLine(out, lines[i]); err != nil && werr == nil {
			werr = fmt.Errorf("%w of %s: %w", ErrOutput, name, err)
		}
		lines[i] = nil
	}
	_ = g.Wait()
	r.o.Log.Debug("preprocess done", "inputs", len(files), "wall_ms", ms(time.Since(start)))
	return errors.Join(refused, werr)
}

// headBytes is how much of each file dispatchOrder reads: enough for the
// headers of a photo with a large EXIF or ICC block.
const headBytes = 256 << 10

// dispatchOrder is the order inputs start in: longest first
// (imageprep.Preprocessor.Cost; videos before images, unreadable heads
// last, ties in input order), so that no long input starts last while
// the other workers idle. With no more inputs than workers every input
// starts at once, and the order is the input order.
func (r *Runner) dispatchOrder(files []string) []int {
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	if len(files) <= r.o.Workers {
		return order
	}
	ov := vision.Overrides{MinPixels: r.o.MinPixels, MaxPixels: r.o.MaxPixels}
	cost := make([]int64, len(files))
	head := make([]byte, headBytes)
	for i, name := range files {
		n := readHead(name, head)
		switch {
		case isVideo(head[:n], r.o.Video.AsVideo):
			cost[i] = math.MaxInt64
		default:
			cost[i] = r.images.Cost(head[:n], ov)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cost[b], cost[a]) })
	return order
}

// readHead reads the start of a file into head and returns its length (0
// when the file cannot be read: its own worker reports why).
func readHead(name string, head []byte) int {
	f, err := os.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	n, _ := io.ReadFull(f, head)
	return n
}

// writeLine writes v as one JSON line, without HTML escaping.
func writeLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// one runs one input and returns its line.
func (r *Runner) one(ctx context.Context, name, npyPath string) any {
	data, err := os.ReadFile(name)
	if err != nil {
		return refuse(name, err)
	}
	if isVideo(data, r.o.Video.AsVideo) {
		if r.videos == nil && r.videoErr != nil {
			return refuse(name, fmt.Errorf("video input: %w", r.videoErr))
		}
		return r.video(ctx, name, data, npyPath)
	}
	return r.image(ctx, name, data, npyPath)
}
