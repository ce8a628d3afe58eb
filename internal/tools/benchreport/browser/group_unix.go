//go:build unix

package browser

import (
	"os/exec"
	"syscall"
)

// setGroup runs the browser in its own process group and, on timeout, ends
// the whole group (the browser's helper processes too).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
