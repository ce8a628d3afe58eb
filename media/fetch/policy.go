package fetch

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Defaults used where a Policy field is left at its zero value.
const (
	DefaultMaxBytes     int64 = 32 << 20
	DefaultTimeout            = 10 * time.Second
	DefaultMaxRedirects       = 3
)

// knownSchemes are the URL schemes a Fetcher can read, and the ones allowed
// when Policy.Schemes is nil (file: still needs Policy.FileRoots).
var knownSchemes = [...]string{"data", "http", "https", "file"}

// Policy says which media URLs a Fetcher may read and how much of them. The
// zero value is the documented default: data:, http: and https: URLs, the
// network ones only to public addresses; no file: roots; 32 MiB, 10 s and 3
// redirects per fetch.
type Policy struct {
	// Schemes lists the allowed URL schemes among "data", "http", "https"
	// and "file". nil means all four (file: still needs FileRoots); an
	// empty non-nil slice allows none.
	Schemes []string

	// AllowedHosts opens hosts that the address check would refuse: a URL
	// whose host equals an entry (case-insensitive, trailing dot ignored)
	// may connect to whatever that name resolves to. An entry "*.example"
	// matches every name under example (not example itself). IP literals
	// are allowed here too and mean the same as a single-address prefix in
	// AllowedCIDRs.
	AllowedHosts []string

	// AllowedCIDRs opens address ranges: a resolved or literal address inside
	// one of them is accepted even when it is loopback, private, link-local…
	// Listing a range that contains a cloud metadata address opens that
	// address too.
	AllowedCIDRs []netip.Prefix

	// FileRoots are the directories file: URLs may read below. None means
	// file: URLs are refused. Each root must exist when New is called.
	FileRoots []string

	// MaxBytes caps the size of one media item from any source; 0 means
	// DefaultMaxBytes.
	MaxBytes int64

	// Timeout bounds one http(s) fetch from the first dial to the last byte,
	// redirects included; 0 means DefaultTimeout.
	Timeout time.Duration

	// MaxRedirects is how many redirects one fetch may follow; 0 means
	// DefaultMaxRedirects, a negative value means none.
	MaxRedirects int
}

// resolved is a Policy with defaults applied and entries normalized.
type resolved struct {
	schemes      map[string]bool
	hosts        map[string]bool // exact names
	hostSuffixes []string        // ".example" for "*.example"
	cidrs        []netip.Prefix
	roots        []fileRoot
	maxBytes     int64
	timeout      time.Duration
	maxRedirects int
}

// fileRoot is an allowed directory, as configured and with symlinks resolved.
type fileRoot struct {
	dir  string // absolute, cleaned, as configured (opened with os.OpenRoot)
	real string // the same after EvalSymlinks
}

func (p Policy) resolve() (*resolved, error) {
	r := &resolved{
		schemes:      map[string]bool{},
		hosts:        map[string]bool{},
		maxBytes:     p.MaxBytes,
		timeout:      p.Timeout,
		maxRedirects: p.MaxRedirects,
	}
	switch {
	case r.maxBytes == 0:
		r.maxBytes = DefaultMaxBytes
	case r.maxBytes < 0:
		return nil, fmt.Errorf("fetch: negative MaxBytes %d", p.MaxBytes)
	}
	switch {
	case r.timeout == 0:
		r.timeout = DefaultTimeout
	case r.timeout < 0:
		return nil, fmt.Errorf("fetch: negative Timeout %v", p.Timeout)
	}
	switch {
	case r.maxRedirects == 0:
		r.maxRedirects = DefaultMaxRedirects
	case r.maxRedirects < 0:
		r.maxRedirects = 0
	}
	schemes := p.Schemes
	if schemes == nil {
		schemes = knownSchemes[:]
	}
	for _, s := range schemes {
		s = strings.ToLower(strings.TrimSpace(s))
		if !slices.Contains(knownSchemes[:], s) {
			return nil, fmt.Errorf("fetch: unknown scheme %q in Schemes (want data, http, https or file)", s)
		}
		r.schemes[s] = true
	}
	for _, h := range p.AllowedHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if ip, err := netip.ParseAddr(h); err == nil {
			ip = ip.WithZone("").Unmap()
			r.cidrs = append(r.cidrs, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		if suffix, ok := strings.CutPrefix(h, "*."); ok {
			hs, err := parseHost(suffix)
			if err != nil || hs.name == "" {
				return nil, fmt.Errorf("fetch: invalid AllowedHosts entry %q", h)
			}
			r.hostSuffixes = append(r.hostSuffixes, "."+hs.name)
			continue
		}
		hs, err := parseHost(h)
		if err != nil || hs.name == "" {
			return nil, fmt.Errorf("fetch: invalid AllowedHosts entry %q", h)
		}
		r.hosts[hs.name] = true
	}
	for _, c := range p.AllowedCIDRs {
		if !c.IsValid() {
			return nil, fmt.Errorf("fetch: invalid AllowedCIDRs entry %v", c)
		}
		if c.Addr().Is4In6() && c.Bits() >= 96 {
			c = netip.PrefixFrom(c.Addr().Unmap(), c.Bits()-96)
		}
		r.cidrs = append(r.cidrs, c.Masked())
	}
	for _, dir := range p.FileRoots {
		if !filepath.IsAbs(dir) {
			return nil, fmt.Errorf("fetch: file root %q is not an absolute path", dir)
		}
		dir = filepath.Clean(dir)
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, fmt.Errorf("fetch: file root: %w", err)
		}
		r.roots = append(r.roots, fileRoot{dir: dir, real: real})
	}
	return r, nil
}

// hostAllowed reports whether a DNS name is opened by AllowedHosts.
func (r *resolved) hostAllowed(name string) bool {
	if r.hosts[name] {
		return true
	}
	for _, s := range r.hostSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// addrAllowed reports whether ip is opened by AllowedCIDRs.
func (r *resolved) addrAllowed(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	for _, c := range r.cidrs {
		if c.Contains(ip) {
			return true
		}
	}
	return false
}

// checkAddr returns nil when the policy lets a connection reach ip, and an
// ErrForbidden *Error otherwise.
func (r *resolved) checkAddr(ip netip.Addr) error {
	if r.addrAllowed(ip) {
		return nil
	}
	if reason := ClassifyAddr(ip); reason != "" {
		return newErr(ErrForbidden, "address %s is %s", ip, reason)
	}
	return nil
}

// checkHost is the check made on a URL's host before any lookup, for the
// first URL and every redirect target. It returns the parsed host.
func (r *resolved) checkHost(h string) (host, error) {
	hs, err := parseHost(h)
	if err != nil {
		// A non-canonical spelling of an explicitly allowed address is still
		// refused: the canonical form is required to match an allow-list.
		return hs, err
	}
	if hs.ip.IsValid() {
		return hs, r.checkAddr(hs.ip)
	}
	if r.hostAllowed(hs.name) {
		return hs, nil
	}
	if reason := refusedName(hs.name); reason != "" {
		return hs, newErr(ErrForbidden, "host %q is a %s", hs.name, reason)
	}
	return hs, nil
}
