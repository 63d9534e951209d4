package mpijob

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
)

// TestStopRanksHook runs the worker pods' preStop script in a PID
// namespace of its own (as a pod's container is) beside a stand-in rank:
// the rank gets SIGTERM, and the hook returns once it has exited.
func TestStopRanksHook(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatalf("unshare (util-linux) is needed to give the hook a PID namespace: %v", err)
	}
	dir := t.TempDir()
	sleep, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	rank := filepath.Join(dir, "blastfleet-engine")
	if err := os.WriteFile(rank, sleep, 0o755); err != nil {
		t.Fatal(err)
	}
	script := rank + " 60 & r=$!; sleep 0.3\n(" + stopRanks + ")\necho hook done; wait $r; echo rank exited $?"
	start := time.Now()
	out, err := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("running the hook in a PID namespace: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "hook done\nrank exited 143" {
		t.Errorf("hook output %q, want the rank ended by SIGTERM (143) before the hook returned", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the hook took %s for a rank that exits at once", d)
	}

	obj, err := Executor{}.Build(aSpec())
	if err != nil {
		t.Fatal(err)
	}
	w := obj.(*kubeflow.MPIJob).Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.Containers[0]
	if w.Lifecycle == nil || w.Lifecycle.PreStop == nil || w.Lifecycle.PreStop.Exec == nil ||
		strings.Join(w.Lifecycle.PreStop.Exec.Command, " ") != "sh -c "+stopRanks {
		t.Errorf("worker container lifecycle %+v lacks the preStop hook", w.Lifecycle)
	}
}
