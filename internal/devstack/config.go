package devstack

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Config is what the supervisor runs. Up resolves it (Resolve fills the
// defaults) and writes it to <dir>/config.json for "blastfleet-dev serve".
type Config struct {
	// Dir holds everything the stack writes. Absolute.
	Dir string `json:"dir"`
	// Dev (blastfleet-dev: runs "serve", the supervisor), CLI
	// (blastfleet: the Jobs' commands), Engine
	// (blastfleet-engine, what the partitions' mpirun starts) and Manager
	// (blastfleet-manager, the operator).
	Dev     string `json:"dev"`
	CLI     string `json:"cli"`
	Engine  string `json:"engine"`
	Manager string `json:"manager"`
	// Assets is the directory with etcd and kube-apiserver
	// (hack/install-envtest.sh).
	Assets     string `json:"assets"`
	MinIO      string `json:"minio"`
	Prometheus string `json:"prometheus"`
	// CRDs are CRD files or directories of them: ours and the MPIJob CRD.
	CRDs []string `json:"crds"`
	// RBAC is the operator's ClusterRole (config/rbac/role.yaml); the
	// operator runs as a user bound to it, as its service account would.
	RBAC string `json:"rbac"`
	// LedgerPollInterval is the operator's --ledger-poll-interval.
	LedgerPollInterval Duration `json:"ledgerPollInterval"`
	// Env (KEY=VALUE) is added to every process the local runner starts.
	Env []string `json:"env,omitempty"`
	// Bucket is created in MinIO; Namespace gets the credentials Secret.
	Bucket    string `json:"bucket"`
	Namespace string `json:"namespace"`
	// MaxLifetime, if set, stops the stack after that long; WatchPID, if
	// set, stops it once that process is gone. Tests set both, so a
	// crashed test leaves nothing running.
	MaxLifetime Duration `json:"maxLifetime,omitempty"`
	WatchPID    int      `json:"watchPID,omitempty"`
	// StartTimeout bounds each component's start.
	StartTimeout Duration `json:"startTimeout"`
	// Cluster, when set, makes the stack a real one-node cluster instead
	// of running partitions with the local runner (cluster.go).
	Cluster *ClusterConfig `json:"cluster,omitempty"`
}

// DefaultBucket is the stack's bucket unless its configuration names
// another: config/samples name it.
const DefaultBucket = "blastfleet"

// SecretName is the Secret holding MinIO's credentials, under the key
// names a credentialsSecretRef reads by default.
const SecretName = "minio-credentials"

// Duration is a time.Duration written as "3s" in JSON.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// D is the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// check reports what is missing before anything starts.
func (c *Config) check() error {
	if !filepath.IsAbs(c.Dir) {
		return fmt.Errorf("the stack directory %q must be absolute", c.Dir)
	}
	var errs []error
	need := func(what, path string) {
		if path == "" {
			errs = append(errs, fmt.Errorf("%s: not found", what))
			return
		}
		if _, err := os.Stat(path); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
	}
	need("blastfleet-dev", c.Dev)
	need("blastfleet (the CLI)", c.CLI)
	need("blastfleet-engine", c.Engine)
	need("blastfleet-manager", c.Manager)
	need("etcd", filepath.Join(c.Assets, "etcd"))
	need("kube-apiserver", filepath.Join(c.Assets, "kube-apiserver"))
	need("MinIO server", c.MinIO)
	need("prometheus", c.Prometheus)
	need("the operator's ClusterRole", c.RBAC)
	if len(c.CRDs) == 0 {
		errs = append(errs, errors.New("no CRDs given"))
	}
	for _, p := range c.CRDs {
		need("CRDs", p)
	}
	if c.Cluster != nil {
		errs = append(errs, c.Cluster.check())
	}
	return errors.Join(errs...)
}

func (c *Config) defaults() {
	if c.LedgerPollInterval == 0 {
		c.LedgerPollInterval = Duration(3 * time.Second)
	}
	if c.Bucket == "" {
		c.Bucket = DefaultBucket
	}
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = Duration(90 * time.Second)
	}
}

func writeJSON(path string, v any, mode os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), mode); err != nil {
		return err
	}
	return os.Rename(tmp, path) // readers never see half a file
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// LoadConfig reads the config Up wrote for the supervisor.
func LoadConfig(dir string) (*Config, error) {
	var c Config
	if err := readJSON(paths{dir}.config(), &c); err != nil {
		return nil, fmt.Errorf("stack config: %w", err)
	}
	c.defaults()
	return &c, nil
}
