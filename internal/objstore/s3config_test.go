package objstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without keys in the environment the shared credentials file's profile
// is used; keys in the environment win; neither is a clear error.
func TestS3ConfigSharedCredentials(t *testing.T) {
	file := filepath.Join(t.TempDir(), "credentials")
	data := `[default]
aws_access_key_id = DEFKEY
aws_secret_access_key = defsecret

[site]
aws_access_key_id = SITEKEY
aws_secret_access_key = sitesecret
aws_session_token = tok
`
	if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", file)
	c, err := S3ConfigFromEnv()
	if err != nil || c.AccessKey != "DEFKEY" || c.SecretKey != "defsecret" {
		t.Errorf("default profile: %+v %v", c, err)
	}
	t.Setenv("AWS_PROFILE", "site")
	c, err = S3ConfigFromEnv()
	if err != nil || c.AccessKey != "SITEKEY" || c.SessionToken != "tok" {
		t.Errorf("profile site: %+v %v", c, err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "ENVKEY")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "envsecret")
	if c, err = S3ConfigFromEnv(); err != nil || c.AccessKey != "ENVKEY" {
		t.Errorf("environment keys: %+v %v", c, err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	if _, err = S3ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "AWS_PROFILE") {
		t.Errorf("no credentials: %v", err)
	}
}
