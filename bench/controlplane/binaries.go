package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// binaries are the programs the bench runs, each found through the repo's
// own install script (which builds it once per machine into
// ~/.cache/blastfleet), or taken from the environment variable named.
type binaries struct {
	assets     string // etcd, kube-apiserver: KUBEBUILDER_ASSETS, hack/install-envtest.sh
	cluster    string // kube-scheduler, kube-controller-manager, mpi-operator: BLASTFLEET_CLUSTER_BIN, hack/install-cluster.sh
	kwok       string // BLASTFLEET_KWOK, hack/install-kwok.sh
	minio      string // BLASTFLEET_MINIO, hack/install-minio.sh
	manager    string // BLASTFLEET_MANAGER, bin/blastfleet-manager (make build)
	kwokStages string // the module directory of kwok, for its stage files
}

func findBinaries(root string) (*binaries, error) {
	b := &binaries{}
	var err error
	for _, f := range []struct {
		dst         *string
		env, script string
		mustContain string
	}{
		{&b.assets, "KUBEBUILDER_ASSETS", "hack/install-envtest.sh", "kube-apiserver"},
		{&b.cluster, "BLASTFLEET_CLUSTER_BIN", "hack/install-cluster.sh", "mpi-operator"},
		{&b.kwok, "BLASTFLEET_KWOK", "hack/install-kwok.sh", ""},
		{&b.minio, "BLASTFLEET_MINIO", "hack/install-minio.sh", ""},
	} {
		if *f.dst, err = fromScript(root, f.env, f.script); err != nil {
			return nil, err
		}
		if f.mustContain != "" {
			if _, err := os.Stat(filepath.Join(*f.dst, f.mustContain)); err != nil {
				return nil, fmt.Errorf("%s: %w", f.env, err)
			}
		}
	}
	b.manager = os.Getenv("BLASTFLEET_MANAGER")
	if b.manager == "" {
		b.manager = filepath.Join(root, "bin/blastfleet-manager")
	}
	if _, err := os.Stat(b.manager); err != nil {
		return nil, fmt.Errorf("the operator: %w (run make build, or set BLASTFLEET_MANAGER)", err)
	}
	b.kwokStages, err = kwokModuleDir(root)
	return b, err
}

// fromScript is $env, else what script prints (it builds on first use).
func fromScript(root, env, script string) (string, error) {
	if v := os.Getenv(env); v != "" {
		return v, nil
	}
	cmd := exec.Command(filepath.Join(root, script))
	cmd.Dir, cmd.Stderr = root, os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w", script, err)
	}
	return strings.TrimSpace(string(out)), nil
}
