//go:build unix

package fetch

import "syscall"

// openFlags are added when opening a file: a FIFO must not block the open.
const openFlags = syscall.O_NONBLOCK
