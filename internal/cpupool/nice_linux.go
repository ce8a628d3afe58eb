package cpupool

import "golang.org/x/sys/unix"

// lowerPriority sets the calling thread's nice value (on Linux, priorities
// are per thread).
func lowerPriority(nice int) error {
	return unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), nice)
}

// threadNice reports the calling thread's nice value.
func threadNice() (int, error) {
	// getpriority returns 20 - nice for PRIO_PROCESS on Linux.
	v, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	return 20 - v, err
}
