package admission

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"strconv"
	"strings"
)

// DefaultFraction is the share of the machine's memory (physical RAM, or
// the cgroup's limit when one is set and lower) that DefaultBudget gives
// the tensors.
const DefaultFraction = 0.25

// Memory is how much memory the process may use and where the figure comes
// from.
type Memory struct {
	Bytes int64
	// Source is "physical" (MemTotal of /proc/meminfo) or "cgroup" (the
	// lowest memory limit of the process's cgroup and its ancestors).
	Source string
}

// DefaultBudget is DefaultFraction of the machine's memory (Machine on the
// root file system).
func DefaultBudget() (int64, Memory, error) {
	m, err := Machine(os.DirFS("/"))
	if err != nil {
		return 0, m, err
	}
	return int64(float64(m.Bytes) * DefaultFraction), m, nil
}

// Machine reads the memory available to this process from root (the root
// file system; a test gives another): physical RAM from proc/meminfo, and
// the cgroup memory limit — cgroup v2 memory.max, or v1
// memory.limit_in_bytes — of the process's cgroup (proc/self/cgroup) and
// every ancestor up to the hierarchy's root, when one is lower.
func Machine(root fs.FS) (Memory, error) {
	b, err := fs.ReadFile(root, "proc/meminfo")
	if err != nil {
		return Memory{}, fmt.Errorf("admission: machine memory: %w", err)
	}
	total, err := memTotal(b)
	if err != nil {
		return Memory{}, err
	}
	m := Memory{Bytes: total, Source: "physical"}
	if lim, ok := cgroupLimit(root); ok && lim < m.Bytes {
		m = Memory{Bytes: lim, Source: "cgroup"}
	}
	return m, nil
}

// memTotal reads MemTotal (kB) from /proc/meminfo.
func memTotal(b []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb <= 0 || kb > math.MaxInt64/1024 {
				break
			}
			return kb * 1024, nil
		}
	}
	return 0, errors.New("admission: machine memory: no MemTotal in /proc/meminfo")
}

// cgroupLimit is the lowest memory limit on the way from the process's
// cgroup to the root of its hierarchy (false when none is set or readable).
func cgroupLimit(root fs.FS) (int64, bool) {
	b, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	var v1, v2 string
	haveV2 := false
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2, haveV2 = parts[2], true
		case hasController(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	best, found := int64(math.MaxInt64), false
	// take reads file in the cgroup cg of the hierarchy mounted at mnt and
	// in each of its ancestors.
	take := func(mnt, cg, file string) {
		for p := path.Clean("/" + cg); ; p = path.Dir(p) {
			if n, ok := readLimit(root, path.Join(mnt, p, file)); ok && n < best {
				best, found = n, true
			}
			if p == "/" {
				return
			}
		}
	}
	if v1 != "" {
		take("sys/fs/cgroup/memory", v1, "memory.limit_in_bytes")
	}
	if haveV2 {
		// The unified hierarchy is mounted at /sys/fs/cgroup (pure v2) or
		// at /sys/fs/cgroup/unified (hybrid).
		for _, mnt := range []string{"sys/fs/cgroup", "sys/fs/cgroup/unified"} {
			if _, err := fs.Stat(root, mnt+"/cgroup.controllers"); err == nil {
				take(mnt, v2, "memory.max")
				break
			}
		}
	}
	return best, found
}

// readLimit reads one limit file; "max" and v1's near-2⁶³ "unlimited" are
// no limit.
func readLimit(root fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(root, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= math.MaxInt64/2 {
		return 0, false
	}
	return n, true
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}
