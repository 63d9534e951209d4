//go:build !linux

package localrunner

import "syscall"

// sysProcAttr starts the process in a session of its own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
