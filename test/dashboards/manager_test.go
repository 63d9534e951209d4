package dashboards

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/blastfleet/blastfleet/internal/testenv"
)

var (
	managerOnce  sync.Once
	managerPath  string
	managerBuilt string // a temp dir to remove
	managerErr   error
)

// managerBinary is blastfleet-manager beside the CLI (make build puts
// them both in bin/), else built once for this test process.
func managerBinary(t *testing.T, cli string) string {
	t.Helper()
	managerOnce.Do(func() {
		if p := filepath.Join(filepath.Dir(cli), "blastfleet-manager"); fileExists(p) {
			managerPath = p
			return
		}
		if managerBuilt, managerErr = os.MkdirTemp("", "blastfleet-dashboards-manager-"); managerErr != nil {
			return
		}
		managerPath = filepath.Join(managerBuilt, "blastfleet-manager")
		root, err := testenv.RepoRoot()
		if err != nil {
			managerErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", managerPath, "./cmd/manager")
		cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			managerErr = fmt.Errorf("go build ./cmd/manager: %v\n%s", err, out)
		}
	})
	if managerErr != nil {
		t.Fatal(managerErr)
	}
	return managerPath
}

func removeBuiltManager() {
	if managerBuilt != "" {
		os.RemoveAll(managerBuilt)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
