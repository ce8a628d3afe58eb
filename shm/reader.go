package shm

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/mmgate/mmgate/tensor"
)

// SMGPrefix is the segment prefix of SMG's gateway.
const SMGPrefix = "smg-tokenspeed-"

// ReaderOptions configures a Reader (the worker side). The zero value means
// every default.
type ReaderOptions struct {
	// Dir is the shared-memory directory. Default /dev/shm.
	Dir string
	// Prefixes are the producer prefixes accepted: a handle whose name has
	// none of them is refused, and never opened or unlinked. Default
	// ["mmgate-", "smg-tokenspeed-"].
	Prefixes []string
	// KeepFiles disables unlinking a segment after reading it (the default
	// unlinks, after success or refusal, names with an accepted prefix).
	KeepFiles bool
	// Copy reads segments into Go memory instead of mapping them.
	Copy bool
	// Logger receives unlink failures; nil discards.
	Logger *slog.Logger
}

// Reader reads received tensors (inline or shm) on the worker side. It is safe for
// concurrent use.
type Reader struct {
	opts  ReaderOptions
	nsID  string
	fdmu  sync.RWMutex
	dirfd int
	maps  mapCache // KeepFiles only: mappings of files seen before
}

// NewReader opens the shared-memory directory. A directory that cannot be
// opened leaves a Reader that refuses shm handles (inline still works).
func NewReader(o ReaderOptions) (*Reader, error) {
	if o.Dir == "" {
		o.Dir = DefaultDir
	}
	if len(o.Prefixes) == 0 {
		o.Prefixes = []string{DefaultPrefix, SMGPrefix}
	}
	for _, p := range o.Prefixes {
		if err := validPrefix(p); err != nil {
			return nil, err
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Reader{opts: o, dirfd: -1}
	r.nsID, _ = NamespaceID(o.Dir)
	fd, err := unix.Open(o.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		r.dirfd = fd
	} else {
		o.Logger.Warn("shared memory: directory not usable, shm tensors will be refused", "dir", o.Dir, "err", err)
	}
	return r, nil
}

// KeepsFiles reports whether the reader leaves segments in place after
// reading them (ReaderOptions.KeepFiles): a worker using it advertises
// scheduler_info["shm_keep_after_read"] = true, so that gateways may reuse
// segments (see Route.Reuse).
func (r *Reader) KeepsFiles() bool { return r.opts.KeepFiles }

// NamespaceID is the value to advertise as scheduler_info["shm_namespace_id"]
// ("" when it could not be computed).
func (r *Reader) NamespaceID() string { return r.nsID }

// Close closes the directory.
func (r *Reader) Close() error {
	r.maps.close()
	r.fdmu.Lock()
	defer r.fdmu.Unlock()
	if r.dirfd < 0 {
		return nil
	}
	fd := r.dirfd
	r.dirfd = -1
	return unix.Close(fd)
}

// Prune unmaps the mappings a reader with KeepFiles keeps of files that
// have been removed since (their producer unlinked them: no name reaches
// them again), so that their memory is freed now rather than when later
// files evict them. A gateway whose pool shares this process calls it when
// it removes idle segments (shm.Options.OnRemoved).
func (r *Reader) Prune() { r.maps.prune() }

// View is a tensor read from the wire. Data is valid until Close; for a
// mapped segment it is read-only memory.
type View struct {
	tensor.Tensor
	Path    Path // inline or shm
	release func() error
}

// Close releases a mapping (a no-op for inline or copied data).
func (v *View) Close() error {
	if v.release == nil {
		return nil
	}
	rel := v.release
	v.release, v.Data = nil, nil
	return rel()
}

// Read checks w and returns its bytes: the inline payload as is, or the
// shared-memory segment mapped (zero-copy) or copied. nbytes must equal
// prod(shape) × element size. Refusals wrap ErrBadHandle.
func (r *Reader) Read(w Wire) (*View, error) {
	dt, shape, want, err := header(w)
	if err != nil {
		r.discard(w)
		return nil, err
	}
	switch w.Kind {
	case InlinePayload:
		if len(w.Inline) != want {
			return nil, fmt.Errorf("shm: read: inline payload has %d bytes, %s%v needs %d: %w", len(w.Inline), dt, shape, want, ErrBadHandle)
		}
		return &View{Tensor: tensor.Tensor{DType: dt, Shape: shape, Data: w.Inline}, Path: PathInline}, nil
	case ShmPayload:
		h := w.Shm
		data, release, err := r.readSegment(h.Name, h.Offset, h.NBytes, want, nil)
		if err != nil {
			return nil, err
		}
		return &View{Tensor: tensor.Tensor{DType: dt, Shape: shape, Data: data}, Path: PathShm, release: release}, nil
	case NoPayload:
		return nil, fmt.Errorf("shm: read: tensor has no payload: %w", ErrBadHandle)
	default:
		return nil, fmt.Errorf("shm: read: payload %s not supported: %w", w.Other, ErrBadHandle)
	}
}

// ReadInto is Read that copies a shm payload into buf (grown when too small)
// instead of mapping it; the returned tensor's Data aliases buf or the inline
// payload.
func (r *Reader) ReadInto(w Wire, buf []byte) (tensor.Tensor, error) {
	dt, shape, want, err := header(w)
	if err != nil {
		r.discard(w)
		return tensor.Tensor{}, err
	}
	if w.Kind != ShmPayload {
		v, err := r.Read(w)
		if err != nil {
			return tensor.Tensor{}, err
		}
		return v.Tensor, nil
	}
	if cap(buf) < want {
		buf = make([]byte, want)
	}
	data, _, err := r.readSegment(w.Shm.Name, w.Shm.Offset, w.Shm.NBytes, want, buf[:want])
	if err != nil {
		return tensor.Tensor{}, err
	}
	return tensor.Tensor{DType: dt, Shape: shape, Data: data}, nil
}

// header parses dtype and shape and returns the byte size they imply.
func header(w Wire) (tensor.DType, []int, int, error) {
	dt, err := tensor.ParseDType(w.DType)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("shm: read: %w: %w", ErrBadHandle, err)
	}
	shape := make([]int, len(w.Shape))
	for i, d := range w.Shape {
		shape[i] = int(d)
	}
	n, err := tensor.ByteSize(dt, shape)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("shm: read: %w: %w", ErrBadHandle, err)
	}
	return dt, shape, n, nil
}

// accepted reports whether name carries an accepted producer prefix.
func (r *Reader) accepted(name string) bool {
	for _, p := range r.opts.Prefixes {
		if hasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}

// readSegment validates and reads one handle. With dst nil it maps the file
// and returns the mapping too; otherwise it reads into dst.
func (r *Reader) readSegment(name string, offset, nbytes uint64, want int, dst []byte) (data []byte, release func() error, err error) {
	if err := validName(name); err != nil {
		return nil, nil, fmt.Errorf("shm: read: %w", err)
	}
	if !r.accepted(name) {
		return nil, nil, fmt.Errorf("shm: read %q: %w: name has no accepted producer prefix %q", name, ErrBadHandle, r.opts.Prefixes)
	}
	// From here on the name is ours to remove, after success or refusal.
	if !r.opts.KeepFiles {
		defer r.unlink(name)
	}
	if nbytes != uint64(want) {
		return nil, nil, fmt.Errorf("shm: read %s: %w: nbytes %d but shape and dtype need %d", name, ErrBadHandle, nbytes, want)
	}
	if offset > 1<<62 || nbytes > 1<<62 {
		return nil, nil, fmt.Errorf("shm: read %s: %w: offset %d / nbytes %d out of range", name, ErrBadHandle, offset, nbytes)
	}
	r.fdmu.RLock()
	defer r.fdmu.RUnlock()
	if r.dirfd < 0 {
		return nil, nil, fmt.Errorf("shm: read %s: %w", name, ErrUnavailable)
	}
	// O_NONBLOCK: a FIFO planted under the name must not block the open.
	fd, err := unix.Openat(r.dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, nil, fmt.Errorf("shm: read %s: %w: is a symbolic link", name, ErrBadHandle)
		}
		return nil, nil, fmt.Errorf("shm: read %s: %w: %w", name, ErrBadHandle, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, fmt.Errorf("shm: read %s: %w", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil, fmt.Errorf("shm: read %s: %w: not a regular file", name, ErrBadHandle)
	}
	end := offset + nbytes
	if uint64(st.Size) < end {
		return nil, nil, fmt.Errorf("shm: read %s: %w: file has %d bytes, handle needs %d (offset %d + nbytes %d)", name, ErrBadHandle, st.Size, end, offset, nbytes)
	}
	if nbytes == 0 {
		return []byte{}, nil, nil
	}
	if dst != nil || r.opts.Copy {
		if dst == nil {
			dst = make([]byte, nbytes)
		}
		if err := preadFull(fd, dst, int64(offset)); err != nil {
			return nil, nil, fmt.Errorf("shm: read %s: %w", name, err)
		}
		return dst, nil, nil
	}
	if r.opts.KeepFiles {
		// The producer may refill this file under new names: keep its
		// mapping for the next read.
		m, rel, err := r.maps.mapping(fd, &st)
		if err != nil {
			return nil, nil, fmt.Errorf("shm: read %s: map: %w", name, err)
		}
		return m[offset:end:end], rel, nil
	}
	page := uint64(unix.Getpagesize())
	base := offset &^ (page - 1)
	m, err := unix.Mmap(fd, int64(base), int(end-base), unix.PROT_READ, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, nil, fmt.Errorf("shm: read %s: map: %w", name, err)
	}
	return m[offset-base : end-base : end-base], func() error { return unix.Munmap(m) }, nil
}

func preadFull(fd int, dst []byte, off int64) error {
	for len(dst) > 0 {
		n, err := unix.Pread(fd, dst, off)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: %w", ErrBadHandle, io.ErrUnexpectedEOF)
		}
		dst, off = dst[n:], off+int64(n)
	}
	return nil
}

// discard unlinks the segment of a refused tensor whose handle names a
// valid file with an accepted prefix.
func (r *Reader) discard(w Wire) {
	if w.Kind != ShmPayload || r.opts.KeepFiles || validName(w.Shm.Name) != nil || !r.accepted(w.Shm.Name) {
		return
	}
	r.unlink(w.Shm.Name)
}

// unlink removes a segment after reading it; only called for names with an
// accepted prefix.
func (r *Reader) unlink(name string) {
	r.fdmu.RLock()
	defer r.fdmu.RUnlock()
	if r.dirfd < 0 {
		return
	}
	if err := unix.Unlinkat(r.dirfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		r.opts.Logger.Warn("shared memory: unlink after read failed", "name", name, "err", err)
	}
}
