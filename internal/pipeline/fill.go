package pipeline

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/videoprep"
)

// This file answers: how is a planned item's destination filled? An image
// from the tensor cache, or by decoding and processing it on the heavy
// pool; a video by decoding its sampled frames once (its probe is kept
// from planning) and processing each as it arrives. Either must give the
// plan the prompt was rendered with.

// slotsFor are the items' slots for j, each with the function that fills
// it.
func (p *Pipeline) slotsFor(j *mediaJob, items []prepared) []slot {
	slots := planSlots(items, j.dt)
	for i := range slots {
		if slots[i].pr.video != nil {
			slots[i].fill = p.videoFill(j)
		} else {
			slots[i].fill = p.imageFill(j)
		}
	}
	return slots
}

// imageFill fills an image's destination from the cache or by processing.
func (p *Pipeline) imageFill(j *mediaJob) func(context.Context, *slot, []byte) error {
	return func(ctx context.Context, s *slot, dst []byte) error {
		pr := s.pr
		key := tensorKey(pr.hash, j.a.ProcessorKey, j.ov, j.dt)
		var err error
		work := func() {
			if c, ok := p.cache.get(key); ok {
				p.m.cacheHits.Inc()
				if err = samePlan(pr.param, pr.plan, c.plan); err == nil {
					cpupool.Copy(dst, c.data)
				}
				return
			}
			p.m.cacheMiss.Inc()
			var res *imageprep.Result
			res, err = j.a.Prep.Image(ctx, imageprep.Request{Data: pr.media.Bytes, Overrides: j.ov, DType: j.dt, Alloc: exactly(dst)})
			if err != nil {
				err = fmt.Errorf("%s: %w", pr.param, err)
				return
			}
			if err = samePlan(pr.param, pr.plan, res.Plan); err != nil {
				return
			}
			p.observeImage(res.Timings, j.times)
			if p.cache.admit(key) {
				p.cache.put(key, cached{plan: res.Plan, data: cpupool.Clone(dst)})
			}
		}
		if rerr := p.heavy(ctx, work); rerr != nil {
			return rerr
		}
		return err
	}
}

// videoFill decodes a planned video's sampled frames into its destination
// (the frames' work runs on the heavy pool through the video pipeline;
// FFmpeg decodes at the process's priority).
func (p *Pipeline) videoFill(j *mediaJob) func(context.Context, *slot, []byte) error {
	return func(ctx context.Context, s *slot, dst []byte) error {
		pr := s.pr
		res, err := j.a.VideoPrep.Video(ctx, videoprep.Request{Data: pr.media.Bytes, Overrides: j.vov, DType: j.dt,
			Probed: pr.probed, Alloc: exactly(dst)})
		if err != nil {
			return fmt.Errorf("%s: %w", pr.param, err)
		}
		if err := samePlan(pr.param, pr.plan, res.Plan.Plan); err != nil {
			return err
		}
		p.observeVideo(res.Timings, j.times)
		return nil
	}
}
