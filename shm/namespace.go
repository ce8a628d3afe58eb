package shm

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// bootIDPath is where Linux publishes the random id of the current boot.
const bootIDPath = "/proc/sys/kernel/random/boot_id"

// NamespaceID returns "<boot_id>:<st_dev>" for the shared-memory directory
// dir (normally /dev/shm): the boot id of the running kernel and the decimal
// device number of dir. Two processes see the same tmpfs exactly when their
// ids are equal, which is how a gateway decides (mode auto) that a worker can
// read its segments. Gateway and worker compute it the same way.
func NamespaceID(dir string) (string, error) {
	b, err := os.ReadFile(bootIDPath)
	if err != nil {
		return "", fmt.Errorf("shm: namespace id: %w", err)
	}
	boot := strings.TrimSpace(string(b))
	if boot == "" {
		return "", fmt.Errorf("shm: namespace id: empty %s", bootIDPath)
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return "", fmt.Errorf("shm: namespace id: stat %s: %w", dir, err)
	}
	return boot + ":" + strconv.FormatUint(st.Dev, 10), nil
}

// SameNamespace reports whether a worker advertising workerID shares this
// pool's directory: both ids known and equal. It is Route.NamespaceMatch.
func (p *Pool) SameNamespace(workerID string) bool {
	return workerID != "" && p.probe.NamespaceID != "" && workerID == p.probe.NamespaceID
}
