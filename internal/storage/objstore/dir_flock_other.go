//go:build !unix

package objstore

import (
	"errors"
	"os"
)

// flock is unsupported off Unix: conditional writes need a real lock.
func flock(f *os.File) error {
	return errors.New("file locks are not supported on this system")
}
