package shm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// runProbe opens the directory, reads its size and tries one small segment.
func (p *Pool) runProbe() {
	pr := &p.probe
	pr.Dir = p.opts.Dir
	pr.Budget = p.opts.Budget
	if id, err := NamespaceID(p.opts.Dir); err == nil {
		pr.NamespaceID = id
	} else {
		pr.Warnings = append(pr.Warnings, fmt.Sprintf("no namespace id (mode auto will send inline): %v", err))
	}
	fd, err := unix.Open(p.opts.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		pr.Err = fmt.Errorf("shm: open %s: %w", p.opts.Dir, err)
		pr.Warnings = append(pr.Warnings, fmt.Sprintf("directory not usable, tensors go inline: %v", err))
		return
	}
	var sf unix.Statfs_t
	if err := unix.Fstatfs(fd, &sf); err == nil {
		pr.Size = int64(sf.Blocks) * sf.Bsize
		pr.Free = int64(sf.Bavail) * sf.Bsize
	}
	if pr.Budget == 0 {
		pr.Budget = pr.Size / 2
		if pr.Size <= 0 { // an unlimited tmpfs reports no size
			pr.Budget = -1
			pr.Warnings = append(pr.Warnings, "tmpfs reports no size limit: no shared-memory budget applies")
		}
	}
	if sf.Type != unix.TMPFS_MAGIC {
		pr.Warnings = append(pr.Warnings, "directory is not on a tmpfs: segments may be written to disk")
	}
	pr.HugePages = hugeOption(p.opts.Dir)
	if pr.Size > 0 && pr.Size < p.opts.WarnBelow {
		pr.Warnings = append(pr.Warnings, fmt.Sprintf("tmpfs is only %d MiB (large tensors will go inline or be refused; give the container a larger /dev/shm, e.g. docker --shm-size)", pr.Size>>20))
	}
	p.dirfd = fd
	// A real segment, created and removed, proves the directory is writable
	// with the flags and permissions used for tensors.
	s, err := p.create(4096)
	if err != nil {
		pr.Err = err
		pr.Warnings = append(pr.Warnings, fmt.Sprintf("cannot create segments, tensors go inline: %v", err))
		unix.Close(fd)
		p.dirfd = -1
		return
	}
	s.unmap()
	_ = unix.Unlinkat(fd, s.name, 0)
	pr.Writable = true
}

// hugeOption returns the huge= option of the tmpfs mounted at dir ("" when
// none or unknown), read from /proc/self/mountinfo: the mount whose mount
// point is the longest prefix of dir's real path. With huge=within_size (or
// always, or advise: segments are madvised) segments get 2 MiB pages, which
// makes creating and mapping them many times cheaper.
func hugeOption(dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ""
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	best, opt := -1, ""
	for _, line := range strings.Split(string(b), "\n") {
		// id parent major:minor root mountpoint opts... - fstype source superopts
		f := strings.Fields(line)
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
				break
			}
		}
		if len(f) < 5 || sep < 0 || sep+3 >= len(f) {
			continue
		}
		mp := f[4]
		if real != mp && !strings.HasPrefix(real, strings.TrimSuffix(mp, "/")+"/") {
			continue
		}
		if len(mp) <= best {
			continue
		}
		best, opt = len(mp), ""
		if f[sep+1] == "tmpfs" {
			for _, o := range strings.Split(f[sep+3], ",") {
				if v, ok := strings.CutPrefix(o, "huge="); ok {
					opt = v
				}
			}
		}
	}
	return opt
}
