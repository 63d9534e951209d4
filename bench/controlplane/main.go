// Command controlplane is make bench-control-plane: many SearchCampaigns
// run to Complete on a real kube-apiserver and etcd, with the real
// kube-scheduler, Job controller and MPI operator, kwok's fake nodes
// running the pods without containers, MinIO as the store, and the
// operator (bin/blastfleet-manager) as a process. A stand-in engine in
// this process does each partition's ledger work (standin.go). It
// restarts the operator and the API server once each on the way, checks
// nothing was created twice, and reports reconcile latency, API requests
// by verb and the operator's heap and CPU.
//
//	go run ./bench/controlplane -campaigns 100
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// exitMissing is the exit code when a program the bench runs is missing
// and cannot be built: a test running the bench skips on it.
const exitMissing = 3

type missingError struct{ error }

func (e missingError) Unwrap() error { return e.error }

type config struct {
	campaigns, partitions, nodes int
	dir                          string
	keep                         bool
	operatorArgs                 string
	restarts                     bool
	hold, timeout                time.Duration
	standInWorkers, mpiThreads   int
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func main() {
	var cfg config
	flag.IntVar(&cfg.campaigns, "campaigns", envInt("BENCH_CAMPAIGNS", 1000), "SearchCampaigns to run (BENCH_CAMPAIGNS)")
	flag.IntVar(&cfg.partitions, "partitions", 8, "partitions of each campaign")
	flag.IntVar(&cfg.nodes, "nodes", envInt("BENCH_NODES", 100), "kwok nodes (BENCH_NODES)")
	flag.StringVar(&cfg.operatorArgs, "operator-args", os.Getenv("BENCH_OPERATOR_ARGS"), "extra flags of the operator, space-separated (BENCH_OPERATOR_ARGS)")
	flag.BoolVar(&cfg.restarts, "restarts", true, "restart the operator and the API server once each during the run")
	flag.DurationVar(&cfg.hold, "hold", 5*time.Second, "how long each partition runs before the stand-in does its work")
	flag.DurationVar(&cfg.timeout, "timeout", 2*time.Hour, "give up when the campaigns are not all Complete by then")
	flag.IntVar(&cfg.standInWorkers, "standin-workers", 32, "partitions the stand-in engine works on at once")
	flag.IntVar(&cfg.mpiThreads, "mpi-operator-threads", 8, "the MPI operator's --threadiness")
	flag.StringVar(&cfg.dir, "dir", "", "directory for the components' data and logs (default: a new temporary one)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the directory after a successful run (a failed run always keeps it)")
	flag.Parse()
	// The informers' client logs nothing the report needs.
	ctrllog.SetLogger(logr.Discard())
	if cfg.campaigns < 1 || cfg.partitions < 1 || cfg.nodes < 1 {
		fmt.Fprintln(os.Stderr, "-campaigns, -partitions and -nodes must be at least 1")
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "bench-control-plane: %v\n", err)
		var missing missingError
		if errors.As(err, &missing) {
			os.Exit(exitMissing)
		}
		os.Exit(1)
	}
}

func run(cfg config) (err error) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	root, err := testenv.RepoRoot()
	if err != nil {
		return err
	}
	bins, err := findBinaries(root)
	if err != nil {
		return missingError{err}
	}
	if cfg.dir == "" {
		if cfg.dir, err = os.MkdirTemp("", "bench-control-plane-"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		return err
	}
	b := &bench{cfg: cfg, bins: bins}
	fmt.Fprintf(os.Stderr, "bench-control-plane: %d campaigns x %d partitions on %d kwok nodes; logs in %s\n", cfg.campaigns, cfg.partitions, cfg.nodes, cfg.dir)
	defer func() {
		b.stop()
		if err != nil || cfg.keep {
			fmt.Fprintf(os.Stderr, "logs kept in %s\n", b.logs())
			return
		}
		_ = os.RemoveAll(cfg.dir)
	}()
	if err := b.start(ctx); err != nil {
		return err
	}
	if err := b.drive(ctx); err != nil {
		return err
	}
	mpijobs, problems, err := b.checkOnce(ctx)
	if err != nil {
		return err
	}
	pl, err := b.pipeline(ctx)
	if err != nil {
		return err
	}
	// The figures are printed even when a check fails: they say how far
	// it got.
	b.report(os.Stdout, mpijobs, pl)
	if len(problems) > 0 {
		return fmt.Errorf("created twice or missing:\n  %s", joinLines(problems))
	}
	return nil
}

func joinLines(s []string) string {
	out := ""
	for i, l := range s {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}
