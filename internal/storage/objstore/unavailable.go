package objstore

import (
	"errors"
	"io"
	"net"

	"github.com/minio/minio-go/v7"
)

// Unavailable tells whether err says the store could not be reached or
// answered with a server error (5xx), once the client's retries ran out:
// the store's trouble (down, restarting, overloaded), not the request's.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode >= 500
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF)
}
