package testenv

import (
	"os/exec"
	"syscall"
)

// dieWithParent kills the server if the test binary dies without running
// its cleanups (a timeout panic, a kill), so no server outlives the test.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
