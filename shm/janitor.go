package shm

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The janitor rule. Every file directly under the directory whose name starts
// with the pool's prefix is examined; nothing else is ever touched.
//
//   - A name in the format of segmentName carries its own deadline (creation
//     time + the creating gateway's TTL, wall clock). The segment is an
//     orphan once the deadline has passed, or once its mtime is older than
//     24 h (a deadline far in the future is not believed).
//   - Any other name with the prefix (not made by a Pool) is an orphan once
//     its mtime is older than this pool's TTL.
//   - Segments this pool is still filling (created, neither committed nor
//     released) are never removed by its own janitor: their batch removes
//     them. Nor are its idle segments kept for reuse (reuse.go): each sweep
//     first renames those near their deadline to a fresh name and deadline,
//     so other gateways' janitors never find them expired while this pool
//     sweeps; once it stops (its process died), they expire like any other.
//
// Segments of another live gateway sharing the prefix are therefore removed
// only after the deadline that gateway chose; PIDs are never consulted. A
// segment must be committed to its worker, and read, before its deadline.

// RunJanitor sweeps every SweepInterval until ctx ends.
func (p *Pool) RunJanitor(ctx context.Context) {
	t := time.NewTicker(p.opts.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := p.Sweep(); err != nil {
				p.opts.Logger.Warn("shared memory: janitor sweep failed", "err", err)
			}
		}
	}
}

// Sweep renews this pool's idle segments near their deadline, removes
// orphaned segments once (see the rule above) and forgets handed-off
// segments that their worker already removed. It returns how many
// files it removed.
func (p *Pool) Sweep() (int, error) {
	p.sweepMu.Lock()
	defer p.sweepMu.Unlock()
	p.renewFree()
	var names []string
	err := p.withDir(func(dirfd int) error {
		fd, err := unix.Openat(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		f := os.NewFile(uintptr(fd), p.opts.Dir)
		defer f.Close()
		all, err := f.Readdirnames(-1)
		for _, n := range all {
			if hasPrefix(n, p.opts.Prefix) {
				names = append(names, n)
			}
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	now := p.opts.Now()
	removed := 0
	p.mu.Lock()
	idle := p.freeNamesLocked()
	p.mu.Unlock()
	for _, name := range names {
		if validName(name) != nil || idle[name] {
			continue
		}
		p.mu.Lock()
		_, filling := p.live[name]
		p.mu.Unlock()
		if filling {
			continue
		}
		var st unix.Stat_t
		err := p.withDir(func(dirfd int) error {
			return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		})
		if err != nil {
			continue // gone already, or unreadable
		}
		mtime := time.Unix(st.Mtim.Unix())
		var expiry time.Time
		if pn, ok := parseName(p.opts.Prefix, name); ok {
			expiry = pn.deadline
			if capAt := mtime.Add(maxLifetime); capAt.Before(expiry) {
				expiry = capAt
			}
		} else {
			expiry = mtime.Add(p.opts.TTL)
		}
		if !now.After(expiry) {
			continue
		}
		err = p.withDir(func(dirfd int) error { return unix.Unlinkat(dirfd, name, 0) })
		if err == nil {
			removed++
			p.m.removed.Inc()
		} else if !errors.Is(err, unix.ENOENT) {
			p.opts.Logger.Debug("shared memory: janitor could not remove", "name", name, "err", err)
		}
	}
	p.mu.Lock()
	p.reclaimLocked()
	p.mu.Unlock()
	return removed, nil
}
