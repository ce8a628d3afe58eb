package preprocess

import (
	"context"
	"io"
	"os"
	"runtime/debug"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/tensormem"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: how does a run keep memory cheap? Peak memory stays
// close to the tensors it produces, and page faults are few.
//
// Once an image has been resized, the decoded image and the resampler's
// intermediate rows are garbage, but the Go heap would keep their pages until
// a later collection — while the float32 tensor, eight times the resized
// image, is being written. For large outputs the resizer below hands those
// pages back to the OS before the tensor is filled.

// releaseMinBytes is the resized-image size from which memory is released:
// 8 MiB of RGB becomes a float32 tensor of 64 MiB or more.
const releaseMinBytes = 8 << 20

// releasingResizer streams as the resample.Resizer does (its ResizeRows
// holds no image to release).
type releasingResizer struct {
	*resample.Resizer
}

func (rr releasingResizer) ResizeInto(ctx context.Context, dst, src *imaging.RGB, f resample.Filter) error {
	if err := rr.Resizer.ResizeInto(ctx, dst, src, f); err != nil {
		return err
	}
	if len(dst.Pix) >= releaseMinBytes {
		// src is not used past this point by the processor or its caller.
		debug.FreeOSMemory()
	}
	return nil
}

// warmHeap prepares the Go heap (tensormem.WarmHeap) for the inputs the
// first workers decode and resize at the same time (the first of order).
func (r *Runner) warmHeap(files []string, order []int) {
	ov := vision.Overrides{MinPixels: r.o.MinPixels, MaxPixels: r.o.MaxPixels}
	warm := 0
	buf := make([]byte, headBytes+estimateTail)
	for _, i := range order[:min(r.o.Workers, len(order))] {
		warm += heapEstimate(r.images, files[i], ov, buf)
	}
	tensormem.WarmHeap(warm)
}

// estimateTail is how much of a JPEG's end heapEstimate reads beyond its
// head.
const estimateTail = 64 << 10

// heapEstimate is the Go-heap memory one input needs while it is decoded and
// resized — the decoded image, the resampler's intermediate rows and the
// resized image — planned from the file's headers; 0 when they cannot be
// read and for an image that streams. It reads the file's first headBytes
// into buf, which holds headBytes+estimateTail.
func heapEstimate(pp *imageprep.Preprocessor, name string, o vision.Overrides, buf []byte) int {
	fh, err := os.Open(name)
	if err != nil {
		return 0
	}
	defer fh.Close()
	head := buf[:headBytes]
	n, _ := io.ReadFull(fh, head)
	if n == len(head) && media.Sniff(head) == media.FormatJPEG {
		// Whether a JPEG streams depends on its end (the EOI marker): the
		// file's last bytes stand in for all that follows its head. Other
		// files, videos among them, are sized from their head.
		if st, err := fh.Stat(); err == nil && st.Size() > int64(n) {
			tail := head[n : n+int(min(st.Size()-int64(n), estimateTail))]
			if _, err := fh.ReadAt(tail, st.Size()-int64(len(tail))); err == nil {
				n += len(tail)
			}
		}
	}
	if pp.Streams(head[:n], o) {
		return 0 // a streamed image never holds its decoded rows
	}
	plan, err := pp.Plan(head[:n], o)
	if err != nil {
		return 0
	}
	src := plan.SourceWidth * plan.SourceHeight * 3
	if plan.Width == plan.SourceWidth && plan.Height == plan.SourceHeight {
		return src
	}
	return src + plan.Width*plan.SourceHeight*3 + plan.Width*plan.Height*3
}
