package shm

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Segment names. A segment created by a Pool is named
//
//	<prefix><owner>-<deadline>-<random>
//
// owner: 16 lower-case hex digits, the creating pool's random 64-bit id
// (also sent as ShmHandle.owner_id); deadline: 16 hex digits, the Unix time in
// milliseconds after which the segment is an orphan that any janitor sharing
// the prefix may remove; random: 32 hex digits from crypto/rand (128 bits), so
// names are never guessable and never collide across processes, containers or
// PID namespaces. A name is never reused.

const (
	ownerHexLen    = 16
	deadlineHexLen = 16
	randomHexLen   = 32
)

// newOwnerID returns a fresh random owner id (16 hex digits).
func newOwnerID() (string, error) {
	var b [ownerHexLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("shm: owner id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// segmentName builds a name for a segment of owner that expires at deadline.
func segmentName(prefix, owner string, deadline time.Time) (string, error) {
	var r [randomHexLen / 2]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("shm: segment name: %w", err)
	}
	ms := deadline.UnixMilli()
	if ms < 0 {
		ms = 0
	}
	return fmt.Sprintf("%s%s-%016x-%s", prefix, owner, uint64(ms), hex.EncodeToString(r[:])), nil
}

// parsedName is what the janitor reads from a name with our prefix.
type parsedName struct {
	owner    string
	deadline time.Time
}

// parseName parses a name built by segmentName with the same prefix.
func parseName(prefix, name string) (parsedName, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || len(rest) != ownerHexLen+1+deadlineHexLen+1+randomHexLen {
		return parsedName{}, false
	}
	owner := rest[:ownerHexLen]
	dl := rest[ownerHexLen+1 : ownerHexLen+1+deadlineHexLen]
	rnd := rest[ownerHexLen+1+deadlineHexLen+1:]
	if rest[ownerHexLen] != '-' || rest[ownerHexLen+1+deadlineHexLen] != '-' ||
		!isLowerHex(owner) || !isLowerHex(dl) || !isLowerHex(rnd) {
		return parsedName{}, false
	}
	ms, err := strconv.ParseUint(dl, 16, 64)
	if err != nil || ms > 1<<62 {
		return parsedName{}, false
	}
	return parsedName{owner: owner, deadline: time.UnixMilli(int64(ms))}, true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return len(s) > 0
}

// validName reports whether name is acceptable as a file name directly under
// the shm directory: not empty, not "." or "..", no '/' and no NUL.
func validName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty name", ErrBadHandle)
	case name == "." || name == "..":
		return fmt.Errorf("%w: name %q", ErrBadHandle, name)
	case strings.ContainsRune(name, '/'):
		return fmt.Errorf("%w: name %q contains '/'", ErrBadHandle, name)
	case strings.IndexByte(name, 0) >= 0:
		return fmt.Errorf("%w: name %q contains NUL", ErrBadHandle, name)
	case len(name) > 255:
		return fmt.Errorf("%w: name longer than 255 bytes", ErrBadHandle)
	}
	return nil
}

// validPrefix checks a configured producer prefix: non-empty, itself a valid
// name fragment, and not able to match "." or "..".
func validPrefix(p string) error {
	if p == "" || p == "." || p == ".." || strings.ContainsAny(p, "/\x00") {
		return fmt.Errorf("shm: prefix %q: %w", p, ErrBadOptions)
	}
	return nil
}
