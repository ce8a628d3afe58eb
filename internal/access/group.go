package access

import (
	"fmt"
	"os/user"
	"strconv"
)

// ShmGroup resolves --shm-group, the group that may read the gateway's
// shared-memory segments: a group name or a numeric GID. "" is -1:
// segments readable by their owner only.
func ShmGroup(g string) (int, error) {
	if g == "" {
		return -1, nil
	}
	if id, err := strconv.Atoi(g); err == nil {
		if id < 0 {
			return 0, fmt.Errorf("--shm-group %q: a GID is not negative", g)
		}
		return id, nil
	}
	grp, err := user.LookupGroup(g)
	if err != nil {
		return 0, fmt.Errorf("--shm-group: %w", err)
	}
	return strconv.Atoi(grp.Gid)
}
