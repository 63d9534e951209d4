package devstack

import (
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Store opens the stack's bucket (under prefix) with MinIO's root
// credentials, for tools and tests that upload inputs or read results.
func (s *State) Store(prefix string) (objstore.Store, error) {
	host := strings.TrimPrefix(s.MinIO.Endpoint, "http://")
	return objstore.NewS3(objstore.S3Config{Endpoint: host, PathStyle: true, Region: s.MinIO.Region,
		AccessKey: s.MinIO.AccessKey, SecretKey: s.MinIO.SecretKey}, s.MinIO.Bucket, prefix)
}
