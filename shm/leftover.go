package shm

import (
	"os"
	"path/filepath"
	"strings"
)

// RemoveOwn deletes the segments this pool created (their names carry its
// prefix and owner id) that are still in its directory: segments handed to
// workers that never read them. A gateway calls it once it stops, after
// Close and once no worker can read its segments any more; other
// gateways' segments sharing the prefix are left to their owners and the
// janitors. It returns how many files it removed.
func (p *Pool) RemoveOwn() int {
	dir := p.probe.Dir
	if dir == "" {
		return 0
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	mine := p.opts.Prefix + p.owner + "-"
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), mine) && e.Type().IsRegular() {
			if os.Remove(filepath.Join(dir, e.Name())) == nil {
				n++
			}
		}
	}
	return n
}
