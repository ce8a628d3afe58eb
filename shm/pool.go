package shm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"
)

// Defaults for Options.
const (
	DefaultDir           = "/dev/shm"
	DefaultPrefix        = "mmgate-"
	DefaultTTL           = 30 * time.Second
	DefaultSweepInterval = 5 * time.Second
	// DefaultWarnBelow: the startup probe warns when the tmpfs is smaller
	// than this (Docker gives containers 64 MiB unless told otherwise).
	DefaultWarnBelow = 256 << 20
	// maxLifetime caps how far in the future a deadline read from a name is
	// believed: a segment older than this (by mtime) is an orphan whatever
	// its name says.
	maxLifetime = 24 * time.Hour
)

// Options configures a Pool. The zero value means every default.
type Options struct {
	// Dir is the shared-memory directory (a tmpfs). Default /dev/shm.
	Dir string
	// Prefix starts the name of every segment this pool creates; the pool
	// and its janitor only ever unlink names with this prefix. Default
	// "mmgate-".
	Prefix string
	// ShareWithGroup creates segments with mode 0640 and group GID (fchown),
	// so a worker running as another user in that group can read them.
	// Otherwise segments are 0600.
	ShareWithGroup bool
	GID            int
	// TTL is how long a segment may live before janitors treat it as an
	// orphan (the worker crashed or never read it). Default 30 s.
	TTL time.Duration
	// SweepInterval is the janitor's period. Default 5 s.
	SweepInterval time.Duration
	// Budget caps the bytes held in shared memory at once (segments being
	// filled plus segments handed to workers and not yet removed). 0 means
	// half the tmpfs size; negative means no cap.
	Budget int64
	// WarnBelow: the startup probe warns when the tmpfs is smaller. 0 means
	// DefaultWarnBelow.
	WarnBelow int64
	// ReuseCap caps the bytes of idle segments kept for reuse with workers
	// that keep segments after reading (Route.Reuse; see reuse.go). 0 means
	// DefaultReuseCap or a quarter of the budget, whichever is smaller;
	// negative turns reuse off.
	ReuseCap int64
	// OnIdleBytes, when set, is told the bytes of the idle segments kept
	// for reuse each time they change (so that a memory budget can count
	// them; Pool.TrimIdle gives them back). It is called with the pool's
	// lock held and must not call into the Pool.
	OnIdleBytes func(n int64)
	// OnRemoved, when set, is called after the pool removed idle segments
	// kept for reuse (over ReuseCap, idle too long, trimmed, at Close): a
	// reader in this process that keeps mappings (Reader.Prune) can drop
	// its mappings of them, whose pages would otherwise stay allocated.
	OnRemoved func()
	// Registerer receives the metrics; nil registers nothing.
	Registerer prometheus.Registerer
	// Logger receives the probe's warnings and janitor errors; nil discards.
	Logger *slog.Logger
	// Now is the clock (wall time: deadlines in names are compared across
	// processes). Nil means time.Now.
	Now func() time.Time
}

// Probe is what New found about the shared-memory directory.
type Probe struct {
	Dir         string
	NamespaceID string // "" when it could not be computed
	Writable    bool   // a segment could be created, reserved and removed
	Size        int64  // tmpfs size in bytes (statfs)
	Free        int64  // bytes available (statfs)
	Budget      int64  // effective budget; negative means none
	HugePages   string // the tmpfs's huge= mount option ("" = none: 4 KiB pages)
	Err         error  // why the directory is not usable, if it is not
	Warnings    []string
}

// Pool creates shared-memory segments for one gateway process, accounts them
// against the budget, and runs the janitor. It is safe for concurrent use.
type Pool struct {
	opts  Options
	perm  uint32
	dirfd int // -1 when the directory is unusable
	owner string
	probe Probe
	m     *metrics

	zero []byte // zeroBlockSize zero bytes, never written

	// testName, when set, replaces segment naming (tests force names).
	testName func() string

	// fdmu guards dirfd against Close; it is never held while waiting for
	// mu (mu may be held while taking fdmu).
	fdmu sync.RWMutex

	mu     sync.Mutex
	closed bool
	live   map[string]*Segment // created, not yet committed or released
	handed map[string]handoff  // committed: the worker owns them now
	inUse  int64               // bytes of live + handed + free

	// Reuse (reuse.go): idle reusable segments, oldest first, and their
	// bytes; reuseCap 0 means reuse is off.
	free      []*Segment
	freeBytes int64
	reuseCap  int64

	sweepMu sync.Mutex // one Sweep at a time
}

// handoff is a segment given to a worker, kept until it disappears (the
// worker unlinked it) or expires (the janitor removes it).
type handoff struct {
	size     int64
	deadline time.Time
}

// New checks the options, opens the directory, runs the startup probe and
// registers the metrics. An unusable directory is not an error: the pool then
// reports it in Probe and every allocation fails with ErrUnavailable (tensors
// go inline). Errors are for invalid options and metrics registration.
func New(o Options) (*Pool, error) {
	if o.Dir == "" {
		o.Dir = DefaultDir
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if err := validPrefix(o.Prefix); err != nil {
		return nil, err
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.SweepInterval == 0 {
		o.SweepInterval = DefaultSweepInterval
	}
	if o.TTL < 0 || o.SweepInterval < 0 {
		return nil, fmt.Errorf("shm: negative ttl or sweep interval: %w", ErrBadOptions)
	}
	if o.WarnBelow == 0 {
		o.WarnBelow = DefaultWarnBelow
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	owner, err := newOwnerID()
	if err != nil {
		return nil, err
	}
	p := &Pool{
		opts:   o,
		perm:   0o600,
		dirfd:  -1,
		owner:  owner,
		zero:   make([]byte, zeroBlockSize),
		live:   map[string]*Segment{},
		handed: map[string]handoff{},
	}
	if o.ShareWithGroup {
		p.perm = 0o640
	}
	if p.m, err = newMetrics(o.Registerer, p); err != nil {
		return nil, err
	}
	p.runProbe()
	switch {
	case o.ReuseCap < 0:
	case o.ReuseCap > 0:
		p.reuseCap = o.ReuseCap
	default:
		p.reuseCap = DefaultReuseCap
		if b := p.probe.Budget; b >= 0 && b/4 < p.reuseCap {
			p.reuseCap = b / 4
		}
	}
	for _, w := range p.probe.Warnings {
		o.Logger.Warn("shared memory: "+w, "dir", o.Dir)
	}
	return p, nil
}

// Probe returns what the startup probe found.
func (p *Pool) Probe() Probe { return p.probe }

// Usable reports whether segments can be created.
func (p *Pool) Usable() bool {
	p.fdmu.RLock()
	defer p.fdmu.RUnlock()
	return p.dirfd >= 0
}

// withDir runs f with the directory fd, or fails with ErrUnavailable when the
// directory is unusable or the pool is closed.
func (p *Pool) withDir(f func(dirfd int) error) error {
	p.fdmu.RLock()
	defer p.fdmu.RUnlock()
	if p.dirfd < 0 {
		return fmt.Errorf("shm: %s: %w", p.opts.Dir, ErrUnavailable)
	}
	return f(p.dirfd)
}

// NamespaceID is the gateway's "<boot_id>:<st_dev>" for the directory.
func (p *Pool) NamespaceID() string { return p.probe.NamespaceID }

// Owner is this pool's random owner id, sent as ShmHandle.owner_id and
// embedded in every segment name.
func (p *Pool) Owner() string { return p.owner }

// Prefix is the name prefix of this pool's segments.
func (p *Pool) Prefix() string { return p.opts.Prefix }

// InUse returns the number of segments and bytes currently held (being
// filled, handed to workers, or idle for reuse).
func (p *Pool) InUse() (segments int, bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.live) + len(p.handed) + len(p.free), p.inUse
}

// NewBatch starts the set of segments of one request. When ctx ends before
// Commit or Release, the segments' files are unlinked at once (see Batch);
// ctx may be nil.
func (p *Pool) NewBatch(ctx context.Context, requestID string) *Batch {
	b := &Batch{pool: p, id: requestID}
	if ctx != nil {
		b.stop = context.AfterFunc(ctx, b.abandon)
	}
	return b
}

// alloc reserves budget and creates a segment of n bytes.
func (p *Pool) alloc(n int) (*Segment, error) {
	if n <= 0 {
		return nil, fmt.Errorf("shm: alloc %d bytes: %w", n, ErrBadOptions)
	}
	if !p.Usable() {
		return nil, fmt.Errorf("shm: alloc: %w", ErrUnavailable)
	}
	if err := p.reserve(int64(n)); err != nil {
		return nil, err
	}
	s, err := p.create(n)
	if err != nil {
		p.unreserve(int64(n))
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		s.unmap()
		p.unlinkOwn(s.name)
		p.unreserve(int64(n))
		return nil, fmt.Errorf("shm: alloc: pool closed: %w", ErrUnavailable)
	}
	p.live[s.name] = s
	p.mu.Unlock()
	return s, nil
}

// reserve adds n to the bytes in use, or fails with ErrOverBudget. Over the
// budget it first forgets handed-off segments that workers already removed,
// then removes idle segments kept for reuse, oldest first.
func (p *Pool) reserve(n int64) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return fmt.Errorf("shm: alloc: pool closed: %w", ErrUnavailable)
	}
	b := p.probe.Budget
	if b < 0 || p.inUse+n <= b {
		p.inUse += n
		p.mu.Unlock()
		return nil
	}
	p.reclaimLocked()
	var evicted []*Segment
	if over := p.inUse + n - b; over > 0 {
		evicted = p.trimLocked(max(0, p.freeBytes-over))
		p.idleChangedLocked()
	}
	ok := p.inUse+n <= b
	if ok {
		p.inUse += n
	}
	inUse := p.inUse
	p.mu.Unlock()
	p.discard(evicted)
	if !ok {
		return fmt.Errorf("shm: alloc %d bytes with %d of %d in use: %w", n, inUse, b, ErrOverBudget)
	}
	return nil
}

func (p *Pool) unreserve(n int64) {
	p.mu.Lock()
	p.inUse -= n
	p.mu.Unlock()
}

// reclaimLocked drops handed-off segments whose file is gone.
func (p *Pool) reclaimLocked() {
	_ = p.withDir(func(dirfd int) error {
		for name, h := range p.handed {
			var st unix.Stat_t
			if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
				delete(p.handed, name)
				p.inUse -= h.size
			}
		}
		return nil
	})
}

// handOff moves committed segments from live to handed.
func (p *Pool) handOff(segs []*Segment) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range segs {
		if _, ok := p.live[s.name]; !ok {
			continue
		}
		delete(p.live, s.name)
		p.handed[s.name] = handoff{size: int64(s.size), deadline: s.deadline}
	}
}

// drop unlinks released segments and returns their budget.
func (p *Pool) drop(segs []*Segment) {
	for _, s := range segs {
		p.mu.Lock()
		_, ok := p.live[s.name]
		delete(p.live, s.name)
		if ok {
			p.inUse -= int64(s.size)
		}
		p.mu.Unlock()
		if ok {
			p.unlinkOwn(s.name)
		}
	}
}

// unlinkOwn removes name, which must carry this pool's prefix.
func (p *Pool) unlinkOwn(name string) {
	if !hasPrefix(name, p.opts.Prefix) || validName(name) != nil {
		return
	}
	err := p.withDir(func(dirfd int) error { return unix.Unlinkat(dirfd, name, 0) })
	if err != nil && !errors.Is(err, unix.ENOENT) {
		p.opts.Logger.Warn("shared memory: unlink failed", "name", name, "err", err)
	}
}

// Close unlinks the segments still being filled (their mappings stay until
// their batch ends) and the idle segments kept for reuse, and closes the
// directory. Segments already handed to workers are left to them and to
// janitors.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	segs := make([]*Segment, 0, len(p.live))
	for _, s := range p.live {
		segs = append(segs, s)
	}
	idle := p.trimLocked(0)
	p.idleChangedLocked()
	p.mu.Unlock()
	p.discard(idle)
	// Detached, not unmapped: a producer may still be writing into one.
	for _, s := range segs {
		s.detach()
	}
	p.drop(segs)
	p.fdmu.Lock()
	defer p.fdmu.Unlock()
	if p.dirfd >= 0 {
		fd := p.dirfd
		p.dirfd = -1
		return unix.Close(fd)
	}
	return nil
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }
