package testenv

import (
	"testing"
	"time"

	"github.com/minio/minio-go/v7/pkg/credentials"
)

// WaitSTS waits until m's STS answers: MinIO is live before its identity
// subsystem is ready ("Server not initialized, please try again"). It
// returns temporary credentials of the root user (AssumeRole), with a
// session token.
func (m *MinIO) WaitSTS(t testing.TB) credentials.Value {
	t.Helper()
	var v credentials.Value
	Eventually(t, "MinIO's STS", 30*time.Second, 200*time.Millisecond, func() (bool, string) {
		sts, err := credentials.NewSTSAssumeRole(m.Endpoint, credentials.STSAssumeRoleOptions{
			AccessKey: m.AccessKey, SecretKey: m.SecretKey, DurationSeconds: 900,
		})
		if err != nil {
			return false, err.Error()
		}
		if v, err = sts.Get(); err != nil {
			return false, err.Error()
		}
		return v.SessionToken != "", "no session token"
	})
	return v
}
