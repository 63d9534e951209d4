package localrunner

import "syscall"

// sysProcAttr starts the process in a session of its own, and kills it if
// the runner dies without stopping it (a crash, SIGKILL), so no launcher
// outlives the runner unnoticed; the runner marks such MPIJobs
// LauncherLost when it starts again.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
