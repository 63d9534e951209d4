package objstore

import (
	"fmt"
	"os"
	"strings"
)

// Role is which of a campaign's stores a location is: the queries, the
// database or the output (campaign ledger and results). Each may be on
// its own endpoint with its own credentials, read from variables with the
// role's prefix (docs/engine.md, "Storage variables").
type Role string

const (
	// RoleOutput is the campaign's own location: the unprefixed AWS_*
	// variables.
	RoleOutput Role = ""
	// RoleQueries reads BLASTFLEET_QUERIES_AWS_* when any
	// BLASTFLEET_QUERIES_ variable is set.
	RoleQueries Role = "QUERIES"
	// RoleDatabase reads BLASTFLEET_DATABASE_AWS_* when any
	// BLASTFLEET_DATABASE_ variable is set.
	RoleDatabase Role = "DATABASE"
)

// ReplicaRole is the role of a database's i-th replica (1-based):
// "REPLICA1" reads BLASTFLEET_REPLICA1_AWS_* when any BLASTFLEET_REPLICA1_
// variable is set, else the unprefixed ones, as the other roles do. Each
// replica is numbered apart because it may be another endpoint with keys
// of its own.
func ReplicaRole(i int) Role {
	if i < 1 {
		// A programming error: replica numbers start at 1 in flags and docs.
		panic(fmt.Sprintf("objstore: replica role %d, want >= 1", i))
	}
	return Role(fmt.Sprintf("REPLICA%d", i))
}

// EnvPrefix is the prefix of the role's variables; "" for RoleOutput.
func (r Role) EnvPrefix() string {
	if r == RoleOutput {
		return ""
	}
	return "BLASTFLEET_" + string(r) + "_"
}

// CredentialsEnv is the variable choosing the role's credentials source
// (CredentialsSource values).
func (r Role) CredentialsEnv() string {
	if r == RoleOutput {
		return "BLASTFLEET_S3_CREDENTIALS"
	}
	return r.EnvPrefix() + "S3_CREDENTIALS"
}

// storeEnv reads one role's variables.
type storeEnv struct{ role Role }

func (e storeEnv) name(v string) string { return e.role.EnvPrefix() + v }
func (e storeEnv) get(v string) string  { return os.Getenv(e.name(v)) }

// envFor is the role's variables if any is set (not empty), else the
// unprefixed ones: a site with one store for everything sets AWS_* only.
func envFor(r Role) storeEnv {
	if r == RoleOutput {
		return storeEnv{}
	}
	p := r.EnvPrefix()
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, p) && v != "" {
			return storeEnv{role: r}
		}
	}
	return storeEnv{}
}

// RoleConfigured says whether any of the role's own variables is set
// (not empty); RoleOutput always is.
func RoleConfigured(r Role) bool { return envFor(r).role == r }

// S3ConfigForRole is S3ConfigFromEnv for the role's variables, or the
// unprefixed ones when the role has none.
func S3ConfigForRole(r Role) (S3Config, error) {
	return s3ConfigFrom(envFor(r))
}
