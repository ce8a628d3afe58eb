//go:build unix

package tokenizer

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used (all threads).
func processCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
