package shm

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Reuse of segments. Fresh tmpfs pages are expensive (allocation, zeroing,
// faults on both sides, freeing), so for a worker that advertises that it
// keeps segments after reading them (Route.Reuse) the pool keeps each
// segment's file and mapping after its batch and refills the same pages for
// a later request:
//
//   - Commit (the worker answered: it has read the tensors) puts the
//     batch's reusable segments on a free list instead of unmapping and
//     unlinking them. Release (the request failed before the worker
//     answered) and an abandoned batch (its context ended) unlink them as
//     usual: a worker may still be reading, and refilling the pages could
//     hand it another request's bytes.
//   - Place with Route.Reuse takes the smallest free segment that fits (at
//     least the tensor's size, wasting at most an eighth of it plus a page),
//     else creates one rounded up to a page. A taken segment is renamed
//     (renameat2 RENAME_NOREPLACE in the directory) to a fresh name with a
//     fresh deadline, so a worker never sees a name twice and the janitor
//     rule still holds: the name carries its owner and deadline. The bytes
//     past the tensor are zero; the handle's nbytes is the tensor's size
//     (readers accept a file longer than offset + nbytes).
//   - A segment is on the free list or in exactly one batch, never both.
//   - The free list holds at most Options.ReuseCap bytes (oldest removed
//     first) and counts against the budget; an allocation over the budget
//     empties the free list, oldest first, before failing. Pool.Close
//     unlinks the free list.
//   - While a segment waits on the free list its name's deadline draws
//     near; this pool's janitor never removes its own free segments, and
//     renews (renames with a fresh deadline) those within renewMargin of
//     their deadline on each sweep, so other gateways' janitors, which
//     delete only after the deadline, never see them expired while this
//     pool lives. A pool that stops sweeping (it crashed) stops renewing,
//     and its segments expire like any other. If a free segment vanished
//     anyway (another janitor, or a worker that unlinks after all), the
//     rename fails and the pool forgets it and creates a new one.
//   - A segment idle for more than idleTTLs × TTL is removed at its next
//     renewal instead, so that the free list shrinks after a burst.
//   - Segments are never truncated, so a reader mapping one never faults;
//     a worker still reading a segment after the gateway gave up on that
//     request (its connection failed) may see the bytes of a later request.

// DefaultReuseCap is the default cap of the free list (see Options.ReuseCap).
const DefaultReuseCap = 1 << 30

// pageSize is the granule reusable segments are created in.
const pageSize = 4096

// touchEvery is how often a long-lived reusable segment's mtime is renewed:
// janitors believe no deadline beyond mtime + maxLifetime.
const touchEvery = time.Hour

// idleTTLs: an idle segment is kept for at most this many TTLs.
const idleTTLs = 4

// reuseSize is the size a reusable segment for n bytes is created with.
func reuseSize(n int) int { return (n + pageSize - 1) &^ (pageSize - 1) }

// fits reports whether a free segment of size bytes may carry n bytes.
func fits(size, n int) bool { return size >= n && size-n <= n/8+pageSize }

// renewMargin is how close to its deadline a free segment is renamed by the
// janitor: half the TTL, and at least two sweeps.
func (p *Pool) renewMargin() time.Duration {
	return max(p.opts.TTL/2, 2*p.opts.SweepInterval)
}

// ReuseStats is the state of the free list.
type ReuseStats struct {
	Segments int
	Bytes    int64
	Cap      int64 // 0: reuse is off
}

// Reuse returns the state of the free list.
func (p *Pool) Reuse() ReuseStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return ReuseStats{Segments: len(p.free), Bytes: p.freeBytes, Cap: p.reuseCap}
}

// allocReuse returns a reusable segment of at least n bytes: a free one,
// renamed (a hit), or a new one (a miss).
func (p *Pool) allocReuse(n int) (*Segment, error) {
	if n <= 0 {
		return nil, fmt.Errorf("shm: alloc %d bytes: %w", n, ErrBadOptions)
	}
	for {
		s := p.takeFree(n)
		if s == nil {
			break
		}
		if err := p.rename(s); err != nil {
			// Gone or unusable: forget it.
			if !errors.Is(err, unix.ENOENT) {
				p.unlinkOwn(s.name)
			}
			s.unmap()
			p.unreserve(int64(s.size))
			p.opts.Logger.Debug("shared memory: free segment not reusable", "name", s.name, "err", err)
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			p.discard([]*Segment{s})
			return nil, fmt.Errorf("shm: alloc: pool closed: %w", ErrUnavailable)
		}
		p.live[s.name] = s
		p.mu.Unlock()
		s.mu.Lock()
		if s.used > n {
			clear(s.mem[n:s.used])
		}
		s.used = n
		s.sealed = false
		s.mu.Unlock()
		p.m.reuse.WithLabelValues("hit").Inc()
		return s, nil
	}
	s, err := p.alloc(reuseSize(n))
	if err != nil {
		return nil, err
	}
	p.m.reuse.WithLabelValues("miss").Inc()
	s.reusable, s.used = true, n
	return s, nil
}

// takeFree removes the best-fitting free segment for n bytes from the free
// list (it stays counted in the bytes in use), or returns nil.
func (p *Pool) takeFree(n int) *Segment {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	best := -1
	for i, s := range p.free {
		if fits(s.size, n) && (best < 0 || s.size < p.free[best].size) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	s := p.free[best]
	p.free = slices.Delete(p.free, best, best+1)
	p.freeBytes -= int64(s.size)
	p.idleChangedLocked()
	return s
}

// rename gives a segment nobody else holds a fresh name and deadline, and
// renews its mtime when it is old.
func (p *Pool) rename(s *Segment) error {
	name, deadline, err := p.newName()
	if err != nil {
		return err
	}
	now := p.opts.Now()
	err = p.withDir(func(dirfd int) error {
		err := unix.Renameat2(dirfd, s.name, dirfd, name, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			// No RENAME_NOREPLACE here; the new name has 128 random bits.
			err = unix.Renameat(dirfd, s.name, dirfd, name)
		}
		if err != nil {
			return err
		}
		if now.Sub(s.touched) >= touchEvery {
			ts := []unix.Timespec{{Nsec: unix.UTIME_NOW}, {Nsec: unix.UTIME_NOW}}
			if err := unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW); err == nil {
				s.touched = now
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("shm: rename %s: %w", s.name, err)
	}
	s.name, s.deadline = name, deadline
	return nil
}

// recycle puts the segments of a finished batch on the free list (trimming
// it to its cap), or removes them when the pool is closed or reuse is off.
// Segments already dropped (pool closed) are only unmapped.
func (p *Pool) recycle(segs []*Segment) {
	var gone, trim []*Segment
	now := p.opts.Now()
	p.mu.Lock()
	for _, s := range segs {
		if _, ok := p.live[s.name]; !ok {
			s.unmap()
			continue
		}
		delete(p.live, s.name)
		if p.closed || int64(s.size) > p.reuseCap {
			p.inUse -= int64(s.size)
			gone = append(gone, s)
			continue
		}
		s.idleSince = now
		p.free = append(p.free, s)
		p.freeBytes += int64(s.size)
	}
	trim = p.trimLocked(p.reuseCap)
	p.idleChangedLocked()
	p.mu.Unlock()
	p.discard(append(gone, trim...))
}

// TrimIdle removes idle segments kept for reuse, oldest first, until at
// least want bytes are freed or none is left, and returns the bytes freed.
// A memory budget that needs room calls it (see Options.OnIdleBytes).
func (p *Pool) TrimIdle(want int64) int64 {
	p.mu.Lock()
	before := p.freeBytes
	segs := p.trimLocked(max(0, p.freeBytes-want))
	freed := before - p.freeBytes
	p.idleChangedLocked()
	p.mu.Unlock()
	p.discard(segs)
	return freed
}

// idleChangedLocked tells Options.OnIdleBytes the idle bytes now.
func (p *Pool) idleChangedLocked() {
	if p.opts.OnIdleBytes != nil {
		p.opts.OnIdleBytes(p.freeBytes)
	}
}

// trimLocked removes free segments, oldest first, until the free list holds
// at most limit bytes, and returns them (the caller discards them).
func (p *Pool) trimLocked(limit int64) []*Segment {
	var out []*Segment
	k := 0
	for k < len(p.free) && p.freeBytes > limit {
		s := p.free[k]
		p.freeBytes -= int64(s.size)
		p.inUse -= int64(s.size)
		out = append(out, s)
		k++
	}
	p.free = slices.Delete(p.free, 0, k)
	return out
}

// discard unmaps and unlinks segments that left the pool's accounting, and
// tells Options.OnRemoved.
func (p *Pool) discard(segs []*Segment) {
	for _, s := range segs {
		s.unmap()
		p.unlinkOwn(s.name)
	}
	if len(segs) > 0 && p.opts.OnRemoved != nil {
		p.opts.OnRemoved()
	}
}

// renewFree renames free segments that are within renewMargin of their
// deadline, so that no janitor takes them for orphans.
func (p *Pool) renewFree() {
	now := p.opts.Now()
	margin := p.renewMargin()
	p.mu.Lock()
	var due []*Segment
	keep := p.free[:0]
	var stale []*Segment
	for _, s := range p.free {
		if s.deadline.Sub(now) <= margin {
			p.freeBytes -= int64(s.size)
			if now.Sub(s.idleSince) > idleTTLs*p.opts.TTL {
				p.inUse -= int64(s.size)
				stale = append(stale, s)
				continue
			}
			due = append(due, s)
		} else {
			keep = append(keep, s)
		}
	}
	clear(p.free[len(keep):])
	p.free = keep
	if len(due) == 0 {
		p.idleChangedLocked()
	}
	p.mu.Unlock()
	p.discard(stale)
	if len(due) == 0 {
		return
	}
	var back, lost []*Segment
	for _, s := range due {
		if err := p.rename(s); err != nil {
			if !errors.Is(err, unix.ENOENT) {
				p.opts.Logger.Warn("shared memory: could not renew a free segment", "name", s.name, "err", err)
			}
			lost = append(lost, s)
			continue
		}
		back = append(back, s)
	}
	p.mu.Lock()
	for _, s := range lost {
		p.inUse -= int64(s.size)
	}
	if p.closed {
		for _, s := range back {
			p.inUse -= int64(s.size)
		}
		lost = append(lost, back...)
	} else {
		// Renewed segments go to the front: they are the oldest.
		p.free = append(back, p.free...)
		for _, s := range back {
			p.freeBytes += int64(s.size)
		}
	}
	p.idleChangedLocked()
	p.mu.Unlock()
	p.discard(lost)
}

// freeNamesLocked returns the names of the free segments.
func (p *Pool) freeNamesLocked() map[string]bool {
	m := make(map[string]bool, len(p.free))
	for _, s := range p.free {
		m[s.name] = true
	}
	return m
}
