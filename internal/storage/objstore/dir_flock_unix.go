//go:build unix

package objstore

import (
	"os"
	"syscall"
)

// flock blocks until f's exclusive lock is ours, retrying on EINTR.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
