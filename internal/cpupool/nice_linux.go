package cpupool

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// lowerPriority moves the calling thread to SCHED_IDLE (idle) or to the
// given nice value (when not negative). When SCHED_IDLE is refused (a
// seccomp filter, say), the nice value still applies and the refusal is
// returned.
func lowerPriority(nice int, idle bool) error {
	var idleErr error
	if idle {
		idleErr = unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}, 0)
		if idleErr == nil {
			return nil
		}
		idleErr = fmt.Errorf("SCHED_IDLE: %w", idleErr)
	}
	if nice < 0 {
		return idleErr
	}
	return errors.Join(idleErr, unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), nice))
}

// threadNice is the calling thread's nice value.
func threadNice() (int, error) {
	v, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	return 20 - v, err
}

// threadIdle reports whether the calling thread runs under SCHED_IDLE.
func threadIdle() (bool, error) {
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return false, err
	}
	return a.Policy == unix.SCHED_IDLE, nil
}
