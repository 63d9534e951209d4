// Command blastfleet-engine is the program inside a partition. Under
// mpirun (or srun) rank 0 is the master and the other ranks are workers;
// run directly, it runs a master and --workers workers in one process.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/engine/mpi"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/engine/transport"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

type flags struct {
	database, queries, output          string
	search                             search.Request
	blockLetters, threads, workers     int
	cacheDir, cacheBytes, groupBytes   string
	writeBuffer, strategy, summaryJSON string
	campaign, partitionID, site        string
	databaseManifest, databaseSHA256   string // from the plan
	databaseReplicas                   []string
	taskTimeoutFactor                  float64
	taskTimeoutMin, taskTimeoutMax     time.Duration
	maxTaskOutput                      string
	querySync                          bool
	verbose                            int
	cpuProfile                         string
	backend, schedule                  string
	sim                                simFlags
	metrics                            metricsFlags
	// changed reports whether the user gave a flag (not its default).
	changed func(name string) bool
}

func main() {
	var f flags
	cmd := newCommand(&f)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmd.ExecuteContext(ctx); err != nil {
		// Every rank parses the same flags: one report is enough.
		if !errors.Is(err, errReported) {
			reportError(err)
		}
		os.Exit(1)
	}
}

// newCommand is the engine's command line, its flags parsed into f.
func newCommand(f *flags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blastfleet-engine --database DB --queries Q.fa --program P --output OUT",
		Short: "Search queries against a sharded BLAST database in parallel, with results equal to an unsharded search",
		Long: `blastfleet-engine runs one search: rank 0 is the master (mpiBLAST's
locality-aware scheduler, per-query merge), the other ranks are workers that
cache database shards and run BLAST+, and write the merged output with the
--strategy chosen (worker-merge by default). Under mpirun it uses MPI; run
directly it runs the master and --workers workers in one process. With
--backend simulate, S3aSim's model stands in for BLAST (no database: see
the --sim-* flags), to measure strategies and --schedule with many ranks.`,
		Example: `  blastfleet-engine --database db/ --queries q.fa --program blastp --output hits.tsv --workers 2
  mpirun -np 4 blastfleet-engine --database s3://dbs/nt --queries q.fa.gz --program blastn \
      --outfmt "6 qseqid sseqid evalue bitscore" --output s3://results/run1.tsv`,
		Version:       "set", // --version prints versionText, which asks the MPI library only then
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.changed = cmd.Flags().Changed
			return run(cmd.Context(), f)
		},
	}
	cobra.AddTemplateFunc("engineVersion", versionText)
	cmd.SetVersionTemplate("{{engineVersion}}")
	fl := cmd.Flags()
	fl.StringVar(&f.database, "database", "", "sharded database: DIR or s3://bucket/prefix holding manifest.json")
	fl.StringArrayVar(&f.databaseReplicas, "database-replica", nil, "another store holding the database's build, checked against its manifest before use: DIR or s3://bucket/prefix, the N-th reaching its store with BLASTFLEET_REPLICA<N>_* (repeatable; default: the replicas recorded in the manifest whose variables are set)")
	fl.StringVar(&f.queries, "queries", "", "query FASTA (plain or gzip): a path or s3://bucket/key")
	f.search.AddFlags(fl)
	fl.StringVar(&f.output, "output", "", "where the merged result goes: FILE or s3://bucket/key")
	fl.IntVar(&f.blockLetters, "block-letters", 0, "query letters per task (default: guided, shrinking as work runs out)")
	fl.IntVar(&f.threads, "threads", 1, "BLAST threads per worker (the worker's slots)")
	fl.IntVar(&f.workers, "workers", 2, "workers when run without mpirun")
	fl.StringVar(&f.cacheDir, "cache-dir", defaultCacheDir(), "where workers cache shards")
	fl.StringVar(&f.cacheBytes, "cache-bytes", "0", "bound of each worker's shard cache, e.g. 8GiB (0: unbounded)")
	fl.StringVar(&f.groupBytes, "group-bytes", "0", "database bytes one task searches (shards are grouped up to this; 0: the whole database, or --cache-bytes)")
	fl.StringVar(&f.writeBuffer, "write-buffer", "4MiB", "bytes a writer gathers before writing (MBS; S3 parts are at least 5MiB)")
	fl.StringVar(&f.strategy, "strategy", "worker-merge", "output strategy: "+strings.Join(output.Strategies, ", "))
	fl.BoolVar(&f.querySync, "query-sync", false, "after each block's writes, every rank waits until the block is written (S3aSim's query sync; the wait is the summary's sync phase)")
	fl.StringVar(&f.schedule, "schedule", "dynamic", "how queries reach workers: "+strings.Join(engine.Schedules, ", ")+
		" (the static splits give each worker a fixed span of every unit's queries up front, with no stealing)")
	d := engine.DefaultTaskLimits
	fl.Float64Var(&f.taskTimeoutFactor, "task-timeout-factor", d.Factor, "a BLAST run may take this many times as long as the worker's slowest measured pace says its block should; past it, it is killed and the task fails (retried, then split)")
	fl.DurationVar(&f.taskTimeoutMin, "task-timeout-min", d.Min, "the shortest task deadline, whatever the pace")
	fl.DurationVar(&f.taskTimeoutMax, "task-timeout-max", d.Max, "the longest task deadline; also every task's before one has been measured")
	fl.StringVar(&f.maxTaskOutput, "max-task-output", "2GiB", "most bytes BLAST may print for one task before it is killed and the task fails (0: unbounded)")
	fl.StringVar(&f.backend, "backend", "blast", "what searches a task: blast (BLAST+ on cached shards) or simulate (S3aSim's model: no database, see --sim-*)")
	f.sim.register(fl)
	f.metrics.register(fl)
	fl.StringVar(&f.summaryJSON, "summary-json", "", "also write the run summary as JSON to this file")
	fl.StringVar(&f.campaign, "campaign", "", "work on a planned campaign (blastfleet campaign plan): lease its chunks until none is left; the search options come from the plan")
	fl.StringVar(&f.partitionID, "partition-id", "", "this partition's name in the campaign's leases (default: the host name)")
	fl.StringVar(&f.site, "site", os.Getenv(enginemetrics.SiteEnv), "where this partition runs (a Kubernetes cluster, an HPC site): the campaign's leases, attempts and commits record it, so status and metrics split progress by site (default: $BLASTFLEET_SITE)")
	fl.CountVarP(&f.verbose, "verbose", "v", "more logs")
	fl.StringVar(&f.cpuProfile, "cpu-profile", "", "write the engine's own CPU profile (not BLAST+'s) to this file (FILE.rankN per rank under mpirun), for go tool pprof")
	return cmd
}

// errReported is an error rank 0 has reported already.
var errReported = errors.New("reported by rank 0")

func reportError(err error) { fmt.Fprintln(os.Stderr, "blastfleet-engine: error:", err) }

func defaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "blastfleet", "shards")
}

func parseBytes(flag, s string) (int64, error) {
	n, err := humanize.ParseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: %w", flag, s, err)
	}
	return int64(n), nil
}

func config(ctx context.Context, f *flags, rank int, log logr.Logger) (*engine.Config, error) {
	if err := checkBackend(f); err != nil {
		return nil, err
	}
	cfg := &engine.Config{Threads: f.threads,
		BlockLetters: f.blockLetters, CacheDir: f.cacheDir, QuerySync: f.querySync, Log: log}
	var err error
	if f.campaign != "" {
		// The plan's search as it was checked when planned: every
		// partition of a campaign searches the same way whatever its
		// command line says.
		if cfg.Spec, err = fromPlan(ctx, f); err != nil {
			return nil, err
		}
	} else {
		if f.search.Program == "" {
			return nil, fmt.Errorf("--program is required")
		}
		if cfg.Spec, err = f.search.Parse(); err != nil {
			return nil, err
		}
	}
	cfg.Database, cfg.Queries, cfg.Output = f.database, f.queries, f.output
	cfg.DatabaseManifest, cfg.DatabaseSHA256 = f.databaseManifest, f.databaseSHA256
	cfg.DatabaseReplicas = f.databaseReplicas
	if cfg.Strategy, err = output.ParseStrategy(f.strategy); err != nil {
		return nil, err
	}
	if cfg.Schedule, err = engine.ParseSchedule(f.schedule); err != nil {
		return nil, err
	}
	if cfg.Sim, err = simulation(f); err != nil {
		return nil, err
	}
	if cfg.Sim != nil && len(cfg.Options) > 0 {
		// Only a campaign's plan can bring them here (checkBackend refuses
		// the flag): the model has nothing they could change.
		log.Info("ignoring the plan's BLAST options under --backend simulate", "options", blast.Args(cfg.Options))
		cfg.Options = nil
	}
	if cfg.CacheBytes, err = parseBytes("cache-bytes", f.cacheBytes); err != nil {
		return nil, err
	}
	if cfg.GroupBytes, err = parseBytes("group-bytes", f.groupBytes); err != nil {
		return nil, err
	}
	if cfg.WriteBuffer, err = parseBytes("write-buffer", f.writeBuffer); err != nil {
		return nil, err
	}
	cfg.TaskLimits = engine.TaskLimits{Factor: f.taskTimeoutFactor, Min: f.taskTimeoutMin, Max: f.taskTimeoutMax}
	if cfg.TaskLimits.MaxOutput, err = parseBytes("max-task-output", f.maxTaskOutput); err != nil {
		return nil, err
	}
	if f.campaign != "" && rank == 0 {
		if cfg.Campaign, err = openCampaign(ctx, f); err != nil {
			return nil, err
		}
	}
	return cfg, cfg.Validate()
}

func run(ctx context.Context, f *flags) error {
	rank := 0
	var tr transport.Transport
	if mpi.Launched() {
		var err error
		if tr, err = mpi.Init(); err != nil {
			return err
		}
		rank = tr.Rank()
	}
	log := funcr.New(func(prefix, args string) {
		fmt.Fprintf(os.Stderr, "%s rank=%d %s\n", prefix, rank, args)
	}, funcr.Options{Verbosity: f.verbose})
	cfg, err := config(ctx, f, rank, log)
	stopProfile := func() {}
	if err == nil {
		stopProfile, err = startCPUProfile(f.cpuProfile, rank, tr != nil)
	}
	defer stopProfile()
	if err == nil {
		// Serving only after the flags checked out: a bad command line
		// leaves no port bound.
		mctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		defer stop()
		cfg.Metrics = serveMetrics(mctx, f, log)
		defer linger(f, cfg.Metrics)
	}
	if err != nil {
		if tr != nil {
			// Rank 0 reports before it closes MPI: once every rank is past
			// MPI_Finalize the others exit at once, and mpirun, seeing a
			// rank exit non-zero, may kill rank 0 before it printed.
			if rank == 0 {
				reportError(err)
			}
			tr.Close()
			return errReported
		}
		return err
	}
	var sum *runrecord.Summary
	if tr != nil {
		sum, err = engine.Run(ctx, cfg, tr)
		if ctx.Err() != nil {
			// Told to stop, the rank has done what a stop asks (its chunks
			// released, its account sent) and leaves without MPI_Finalize:
			// mpirun, stopping too, no longer serves the finalize fence,
			// and a rank waiting in it would only wait for its SIGKILL.
			return err
		}
		if cerr := tr.Close(); err == nil && cerr != nil {
			err = cerr
		}
	} else {
		sum, err = engine.RunLocal(ctx, cfg, f.workers)
	}
	if err != nil || sum == nil {
		return err
	}
	sum.Print(os.Stderr)
	if f.summaryJSON != "" {
		data, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.summaryJSON, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("--summary-json: %w", err)
		}
	}
	return nil
}
