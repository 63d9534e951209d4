package devstack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"

	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
)

// mpiEnv is what OpenMPI needs on a development machine (more ranks than
// cores, maybe root, no ptrace-based single copy in containers), and
// keeps MPI off the network: every rank runs here, so shared memory
// (vader) carries all messages and the ranks open no TCP listener (the
// tcp BTL would listen on every address); mpirun's out-of-band channel
// advertises loopback only (OpenMPI 4.1 still binds its listener to
// 0.0.0.0 whatever this says: docs/development.md).
var mpiEnv = []string{
	"OMPI_ALLOW_RUN_AS_ROOT=1",
	"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
	"OMPI_MCA_mpi_yield_when_idle=1",
	"OMPI_MCA_odls_base_sigkill_timeout=3", // room to record stops (controllers/executor/mpijob)
	"OMPI_MCA_btl_vader_single_copy_mechanism=none",
	"OMPI_MCA_btl=self,vader",
	"OMPI_MCA_oob_tcp_if_include=lo",
}

// startRunner starts the local runner in this (the supervisor's)
// process, so MPIJob launchers and their ranks are its descendants and
// die with it. The programs pods would run are this machine's
// blastfleet, blastfleet-engine and mpirun.
func startRunner(cfg *Config, p paths, ports Ports, rc *rest.Config, log logr.Logger) (*localrunner.Runner, error) {
	r, err := localrunner.New(localrunner.Options{
		WorkDir:         p.runner(),
		Engine:          cfg.Engine,
		CLI:             cfg.CLI,
		BinDir:          filepath.Dir(cfg.Engine),
		Env:             append(append([]string{}, mpiEnv...), cfg.Env...),
		MetricsPortBase: ports.EngineMetricsBase,
		Log:             log,
	})
	if err != nil {
		return nil, err
	}
	if err := r.Start(rc); err != nil {
		return nil, fmt.Errorf("local runner: %w", err)
	}
	return r, nil
}

// watchRunner keeps the state file's list of runner processes and
// Prometheus's engine targets up to date.
func (s *supervisor) watchRunner(ctx context.Context, r *localrunner.Runner) {
	tw := &targetsWriter{path: s.p.engineTargets()}
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	var last []RunnerProcess
	for {
		procs := r.Processes()
		if err := tw.update(engineTargets(procs)); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		var rp []RunnerProcess
		for _, pr := range procs {
			x := RunnerProcess{Kind: pr.Kind, Namespace: pr.Namespace, Name: pr.Name, Index: pr.Index, PID: pr.PID, Log: pr.Log}
			if pr.MetricsPorts > 0 {
				x.MetricsPorts = [2]int{pr.MetricsPortBase, pr.MetricsPortBase + pr.MetricsPorts - 1}
			}
			rp = append(rp, x)
		}
		if !reflect.DeepEqual(rp, last) {
			s.update(func(st *State) { st.Runner.Processes = rp })
			last = rp
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
