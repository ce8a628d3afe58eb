package procs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Footprint is the memory a gateway's tensors can take: the anonymous
// memory of its processes and the shared memory of its segments.
type Footprint struct {
	// Anon is the resident anonymous memory of the processes (RssAnon).
	Anon int64
	// Shm is the shared memory of the segments: the files in the
	// directory (their allocated blocks) and the resident pages of
	// segments the processes still map after they were removed.
	Shm int64
}

// Total is Anon + Shm.
func (f Footprint) Total() int64 { return f.Anon + f.Shm }

// Memory reads the footprint of the processes pids whose segments live in
// the shared-memory directory dir. Linux only.
func Memory(dir string, pids ...int) (Footprint, error) {
	var f Footprint
	ents, err := os.ReadDir(dir)
	if err != nil {
		return f, err
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			f.Shm += st.Blocks * 512
		}
	}
	for _, pid := range pids {
		anon, err := statusKB(pid, "RssAnon:")
		if err != nil {
			return f, err
		}
		f.Anon += anon
		gone, err := removedMappings(pid, dir)
		if err != nil {
			return f, err
		}
		f.Shm += gone
	}
	return f, nil
}

// statusKB reads one "Key: N kB" line of /proc/pid/status, in bytes.
func statusKB(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n * 1024, err
			}
		}
	}
	return 0, fmt.Errorf("procs: no %s in /proc/%d/status", key, pid)
}

// removedMappings sums the resident pages of pid's mappings of files that
// were under dir and are removed ("(deleted)" in /proc/pid/smaps).
func removedMappings(pid int, dir string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	prefix := filepath.Clean(dir) + "/"
	var sum int64
	counting := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") || strings.Contains(fields[0], "-") {
			// A mapping's header: "start-end perms offset dev inode path".
			counting = len(fields) >= 7 && strings.HasPrefix(fields[5], prefix) && fields[len(fields)-1] == "(deleted)"
			continue
		}
		if counting && fields[0] == "Rss:" && len(fields) >= 2 {
			n, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, err
			}
			sum += n * 1024
		}
	}
	return sum, sc.Err()
}
