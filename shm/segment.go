package shm

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Segment is one shared-memory file being filled by the producer. Bytes is a
// writable view of the whole file (mapped); after Seal it must not be used.
type Segment struct {
	pool     *Pool
	name     string
	size     int
	deadline time.Time

	mu       sync.Mutex
	fd       int    // -1 once sealed
	mem      []byte // the producer's mapping, until unmap
	sealed   bool
	detached bool // mem is anonymous memory standing in for the file

	// Reuse (see reuse.go): reusable segments go back to the pool's free
	// list after their batch instead of being unmapped; used is how many
	// leading bytes the last tensor took (the rest is zero), touched when
	// the file's mtime was last set, idleSince when it joined the free
	// list. Only the batch or free list holding the segment touches these.
	reusable  bool
	used      int
	touched   time.Time
	idleSince time.Time
}

// Name is the file name under the shared-memory directory.
func (s *Segment) Name() string { return s.name }

// Size is the segment's length in bytes.
func (s *Segment) Size() int { return s.size }

// Bytes is the mapped memory to fill; nil after Seal.
func (s *Segment) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sealed {
		return nil
	}
	return s.mem
}

// Handle describes the whole segment: offset 0, its full size.
func (s *Segment) Handle() Handle {
	return Handle{Name: s.name, Offset: 0, NBytes: uint64(s.size), Owner: s.pool.owner}
}

// Seal ends writing: the file is made read-only (0400, or 0440 when shared
// with a group) and its descriptor closed; Bytes returns nil from then on.
// The producer's mapping is dropped later, by Commit or Release, so that the
// cost of tearing it down is not paid before the worker gets the handle. It
// is idempotent.
func (s *Segment) Seal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd < 0 {
		// Already sealed, detached, or a reused segment (its file stayed
		// read-only; the writable mapping is the producer's own).
		s.sealed = true
		return nil
	}
	errs := []error{unix.Fchmod(s.fd, s.pool.perm&0o444), unix.Close(s.fd)}
	s.fd = -1
	s.sealed = true
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("shm: seal %s: %w", s.name, err)
	}
	return nil
}

// detach makes the segment's file unreachable from the producer's memory
// without invalidating that memory: the mapping is replaced in place by
// private anonymous memory (MAP_FIXED, same address and length), so a
// producer still writing never faults, while the file's pages are freed as
// soon as it is unlinked. unmap releases the replacement later.
func (s *Segment) detach() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem != nil && !s.detached {
		_, err := unix.MmapPtr(-1, 0, unsafe.Pointer(unsafe.SliceData(s.mem)), uintptr(len(s.mem)),
			unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
		if err == nil {
			s.detached = true
		}
		// On failure the file stays mapped (its pages are freed at unmap).
	}
	if s.fd >= 0 {
		_ = unix.Close(s.fd)
		s.fd = -1
	}
}

// unmap drops the producer's mapping and, if still open, the descriptor
// (without sealing: used after Seal, or on paths that unlink the file).
func (s *Segment) unmap() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem != nil {
		_ = unix.Munmap(s.mem)
		s.mem = nil
	}
	if s.fd >= 0 {
		_ = unix.Close(s.fd)
		s.fd = -1
	}
}

// create makes a new segment of n bytes: a fresh name, an exclusive create
// relative to the directory fd that never follows a symlink, the pool's
// permissions (and group), the whole size reserved by writing it (so a full
// tmpfs fails here with ErrNoSpace rather than with SIGBUS while filling),
// and a shared writable mapping with its pages already mapped.
func (p *Pool) create(n int) (*Segment, error) {
	name, deadline, err := p.newName()
	if err != nil {
		return nil, err
	}
	s := &Segment{pool: p, name: name, size: n, deadline: deadline, fd: -1, touched: p.opts.Now()}
	err = p.withDir(func(dirfd int) error {
		fd, err := unix.Openat(dirfd, name,
			unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, p.perm)
		if errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT) {
			return fmt.Errorf("shm: create %s: %w (%v)", name, ErrNoSpace, err)
		}
		if err != nil {
			return fmt.Errorf("shm: create %s: %w", name, err)
		}
		s.fd = fd
		if err := p.setup(s); err != nil {
			s.unmap()
			_ = unix.Unlinkat(dirfd, name, 0)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// newName returns a fresh segment name and the deadline it carries.
func (p *Pool) newName() (string, time.Time, error) {
	deadline := p.opts.Now().Add(p.opts.TTL)
	var name string
	if p.testName != nil {
		name = p.testName()
	} else {
		var err error
		if name, err = segmentName(p.opts.Prefix, p.owner, deadline); err != nil {
			return "", time.Time{}, err
		}
	}
	if err := validName(name); err != nil || !hasPrefix(name, p.opts.Prefix) {
		return "", time.Time{}, fmt.Errorf("shm: create: refusing name %q", name)
	}
	return name, deadline, nil
}

// setup sets permissions, reserves and maps a freshly created segment.
//
// Reserving: tmpfs's fallocate allocates pages but leaves them "not up to
// date", so the first touch of each page through a mapping is a full page
// fault that zeroes it, one 4 KiB page at a time (no fault-around). Writing
// zeros with pwritev instead allocates and initialises the pages in one
// pass, fails with ENOSPC at once when the tmpfs is full (the same guarantee
// as fallocate: nothing can SIGBUS later), and leaves the pages up to date,
// so MADV_POPULATE_READ then maps them in batches (fault-around). On tmpfs
// the mapping of a shared writable file gets writable entries on a read
// fault, so filling it takes no further faults. Measured on 64 MiB this is
// roughly twice as fast as fallocate + MAP_POPULATE.
func (p *Pool) setup(s *Segment) error {
	// The umask may have removed bits; set the mode exactly.
	if err := unix.Fchmod(s.fd, p.perm); err != nil {
		return fmt.Errorf("shm: chmod %s: %w", s.name, err)
	}
	if p.opts.ShareWithGroup {
		if err := unix.Fchown(s.fd, -1, p.opts.GID); err != nil {
			return fmt.Errorf("shm: chown %s to group %d: %w", s.name, p.opts.GID, err)
		}
	}
	if err := reserve(s.fd, s.size, p.zero); err != nil {
		if errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EFBIG) || errors.Is(err, unix.ENOMEM) || errors.Is(err, unix.EDQUOT) {
			return fmt.Errorf("shm: reserve %d bytes for %s: %w (%v)", s.size, s.name, ErrNoSpace, err)
		}
		return fmt.Errorf("shm: reserve %d bytes for %s: %w", s.size, s.name, err)
	}
	mem, err := unix.Mmap(s.fd, 0, s.size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("shm: map %s: %w", s.name, err)
	}
	s.mem = mem
	// Huge pages where the tmpfs allows them (mounted huge=advise); an
	// error only means they are not available.
	_ = unix.Madvise(mem, unix.MADV_HUGEPAGE)
	if err := unix.Madvise(mem, unix.MADV_POPULATE_READ); err != nil && !errors.Is(err, unix.EINVAL) {
		// EINVAL: a kernel before 5.14; the pages are then mapped while
		// filling. Any other error is a real failure to map.
		return fmt.Errorf("shm: populate %s: %w", s.name, err)
	}
	return nil
}

// zeroBlockSize is the length of Pool.zero, the source of reserving writes.
const zeroBlockSize = 64 << 10

// reserve writes n zero bytes at the start of fd, from zeroBlock (never
// written; shared by concurrent calls).
func reserve(fd, n int, zeroBlock []byte) error {
	iov := make([][]byte, 0, 1024)
	for off := 0; off < n; {
		iov = iov[:0]
		for left := n - off; left > 0 && len(iov) < cap(iov); {
			b := zeroBlock[:min(left, len(zeroBlock))]
			iov = append(iov, b)
			left -= len(b)
		}
		w, err := unix.Pwritev(fd, iov, int64(off))
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err
		}
		if w == 0 {
			return unix.ENOSPC
		}
		off += w
	}
	return nil
}
