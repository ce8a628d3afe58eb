package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/prompt"
)

// This file answers: what happens to a media item before the prompt is
// rendered? Both media stages fetch it, hash its bytes and plan it from its
// headers — an image's size, a video's probed stream — without decoding a
// pixel for processing. Render stops there; the gateway keeps the bytes to
// process them once the request is admitted and its worker picked.

// errNoFetch refuses media that would have to be fetched from elsewhere.
var errNoFetch = errors.New("fetching media is not enabled in render; send images and videos as data: URLs")

// prober is the first half of both media stages.
type prober struct {
	fetcher *fetch.Fetcher
	// inlineOnly refuses media that is not a data: URL before fetching.
	inlineOnly bool
	// heavy, when set, runs each item's CPU work (a data: URL's decoding,
	// hashing, reading headers) on its low-priority threads, so that text
	// requests never wait on it.
	heavy *cpupool.Pool
	// keep: each item keeps its bytes (prepared.media) for processing;
	// otherwise they go back once it is planned.
	keep bool
	// observe, when set, records the fetch time.
	observe func(stage string, d time.Duration)
}

// items probes every item of plan in parallel, in prompt order. On error
// nothing is kept.
func (s prober) items(ctx context.Context, a *Assets, plan *prompt.Plan, ov overrides) ([]prepared, error) {
	items, err := eachItem(ctx, plan, func(ctx context.Context, it prompt.MediaItem) (prepared, error) {
		return s.item(ctx, a, it, ov)
	})
	if err != nil {
		releaseMedia(items)
		return nil, err
	}
	return items, nil
}

// item fetches one item, hashes it and plans it.
func (s prober) item(ctx context.Context, a *Assets, it prompt.MediaItem, ov overrides) (pr prepared, err error) {
	if it.Modality != prompt.Video {
		if err := checkImage(a, it); err != nil {
			return prepared{}, err
		}
	} else if a.VideoPrep == nil {
		return prepared{}, errNoVideo(it)
	}
	if s.inlineOnly && it.Scheme() != "data" {
		return prepared{}, fmt.Errorf("%s: %s URL: %w", it.Param, it.Scheme(), errNoFetch)
	}
	// A data: URL is decoded with the heavy work (it is CPU, not waiting);
	// other sources are fetched before taking a heavy slot.
	var m *fetch.Media
	inline := it.Scheme() == "data"
	if !inline {
		if m, err = s.fetch(ctx, it); err != nil {
			return prepared{}, err
		}
	}
	defer func() {
		if err != nil || !s.keep {
			m.Release()
		}
	}()
	work := func() {
		if inline {
			if m, err = s.fetch(ctx, it); err != nil {
				return
			}
		}
		pr = prepared{modality: it.Modality, param: it.Param}
		if it.Modality == prompt.Image {
			identify(&pr, m.Bytes, imageSettings(ov.image))
			err = planImage(a, it, m.Bytes, ov, &pr)
		} else {
			identify(&pr, m.Bytes, videoSettings(ov.video))
		}
	}
	if s.heavy != nil {
		if rerr := s.heavy.Run(ctx, work); rerr != nil {
			return prepared{}, rerr
		}
	} else {
		work()
	}
	if err == nil && it.Modality == prompt.Video {
		// Probing waits on FFmpeg: no heavy slot is held for it.
		err = planVideo(ctx, a, it, m.Bytes, ov, &pr)
	}
	if err != nil {
		return prepared{}, err
	}
	pr.side = a.Model.SideTensors(pr.item())
	if s.keep {
		pr.media = m
	}
	return pr, nil
}

// fetch gets an item's bytes and records the stage time.
func (s prober) fetch(ctx context.Context, it prompt.MediaItem) (*fetch.Media, error) {
	t0 := time.Now()
	m, err := s.fetcher.Fetch(ctx, it.URL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", it.Param, err)
	}
	if s.observe != nil {
		s.observe("fetch", time.Since(t0))
	}
	return m, nil
}

// planImage plans an image from its header (a.Prep is set).
func planImage(a *Assets, it prompt.MediaItem, data []byte, ov overrides, pr *prepared) error {
	p, err := a.Prep.Plan(data, ov.image)
	if err != nil {
		return fmt.Errorf("%s: %w", it.Param, err)
	}
	pr.plan = p
	return nil
}

// planVideo plans a video from its probed stream (a.VideoPrep is set),
// keeping the probe so that processing decodes once.
func planVideo(ctx context.Context, a *Assets, it prompt.MediaItem, data []byte, ov overrides, pr *prepared) error {
	info, vp, err := a.VideoPrep.Plan(ctx, data, ov.video)
	if err != nil {
		return fmt.Errorf("%s: %w", it.Param, err)
	}
	pr.plan, pr.video, pr.probed = vp.Plan, &vp, &info
	return nil
}
