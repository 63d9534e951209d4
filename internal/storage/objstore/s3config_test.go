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

// Each role reads its own prefixed variables once any is set, else the
// unprefixed ones; the credentials variable chooses anonymous or the
// identity chain, and a wrong value or a missing source is named.
func TestS3ConfigRoles(t *testing.T) {
	clearS3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "OUT")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "outsecret")
	t.Setenv("AWS_ENDPOINT_URL", "http://out:9000")
	c, err := S3ConfigForRole(RoleDatabase)
	if err != nil || c.Endpoint != "out:9000" || c.AccessKey != "OUT" {
		t.Errorf("database without its variables: %+v %v", c, err)
	}
	t.Setenv("BLASTFLEET_DATABASE_AWS_ENDPOINT_URL", "https://db.example.org")
	t.Setenv("BLASTFLEET_DATABASE_AWS_REGION", "eu-west-1")
	if _, err = S3ConfigForRole(RoleDatabase); err == nil || !strings.Contains(err.Error(), "BLASTFLEET_DATABASE_S3_CREDENTIALS=identity") {
		t.Errorf("database with an endpoint and no credentials: %v", err)
	}
	t.Setenv("BLASTFLEET_DATABASE_S3_CREDENTIALS", "identity")
	c, err = S3ConfigForRole(RoleDatabase)
	if err != nil || c.Endpoint != "db.example.org" || !c.Secure || c.Region != "eu-west-1" || c.Credentials != CredentialsIdentity || c.AccessKey != "" {
		t.Errorf("database on its identity: %+v %v", c, err)
	}
	t.Setenv("BLASTFLEET_DATABASE_S3_CREDENTIALS", "public")
	if _, err = S3ConfigForRole(RoleDatabase); err == nil || !strings.Contains(err.Error(), "BLASTFLEET_DATABASE_S3_CREDENTIALS") {
		t.Errorf("unknown credentials source: %v", err)
	}
	t.Setenv("BLASTFLEET_S3_CREDENTIALS", "anonymous")
	c, err = S3ConfigForRole(RoleOutput)
	if err != nil || c.Credentials != CredentialsAnonymous || c.AccessKey != "" {
		t.Errorf("anonymous output: %+v %v", c, err)
	}
	if s := c.String(); strings.Contains(s, "outsecret") {
		t.Errorf("config prints a secret: %s", s)
	}
	// Without keys, a web identity token is enough to choose the chain.
	t.Setenv("BLASTFLEET_S3_CREDENTIALS", "")
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/secrets/eks.amazonaws.com/serviceaccount/token")
	if c, err = S3ConfigFromEnv(); err != nil || c.Credentials != CredentialsIdentity {
		t.Errorf("web identity token without keys: %+v %v", c, err)
	}
}

// RoleConfigured follows the same rule as the choice of variables.
func TestRoleConfigured(t *testing.T) {
	clearS3Env(t)
	if !RoleConfigured(RoleOutput) || RoleConfigured(RoleDatabase) || RoleConfigured(RoleQueries) {
		t.Error("without variables: only the output")
	}
	t.Setenv("BLASTFLEET_QUERIES_AWS_REGION", "eu-west-1")
	if !RoleConfigured(RoleQueries) || RoleConfigured(RoleDatabase) {
		t.Error("queries' region set: queries configured, database not")
	}
}

// Each replica reads its own numbered variables, else the unprefixed ones;
// REPLICA1's do not leak into REPLICA10's.
func TestReplicaRole(t *testing.T) {
	clearS3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "OUT")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "outsecret")
	t.Setenv("AWS_ENDPOINT_URL", "http://out:9000")
	t.Setenv("BLASTFLEET_REPLICA1_AWS_ENDPOINT_URL", "http://replica1:9000")
	t.Setenv("BLASTFLEET_REPLICA1_AWS_ACCESS_KEY_ID", "R1")
	t.Setenv("BLASTFLEET_REPLICA1_AWS_SECRET_ACCESS_KEY", "r1secret")
	r1, r10 := ReplicaRole(1), ReplicaRole(10)
	if r1.EnvPrefix() != "BLASTFLEET_REPLICA1_" || r10.CredentialsEnv() != "BLASTFLEET_REPLICA10_S3_CREDENTIALS" {
		t.Errorf("prefixes %q %q", r1.EnvPrefix(), r10.CredentialsEnv())
	}
	if c, err := S3ConfigForRole(r1); err != nil || c.Endpoint != "replica1:9000" || c.AccessKey != "R1" {
		t.Errorf("replica 1: %+v %v", c, err)
	}
	if !RoleConfigured(r1) || RoleConfigured(r10) {
		t.Error("only replica 1 has variables")
	}
	if c, err := S3ConfigForRole(r10); err != nil || c.Endpoint != "out:9000" || c.AccessKey != "OUT" {
		t.Errorf("replica 10 without its variables: %+v %v", c, err)
	}
}
