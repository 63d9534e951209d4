// Command iobench measures the engine's output strategies with the
// simulate backend, as S3aSim did (papers/001_*, §4) and as issue 8 asks:
//
//   - strategies x ranks (2 to 64, oversubscribed under mpirun with
//     yield-when-idle), without and with --query-sync: wall time and the
//     phase breakdown of each run;
//   - a compute-speed sweep (0.1 to 25.6, doubling) at a fixed rank count.
//
// It prints markdown (docs/benchmarks.md holds one run's), writes SVG
// figures, and checks that every run wrote the same bytes. `make bench-io`
// runs it through bench/io.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/bench/benchrun"
)

var strategies = []string{"worker-merge", "worker-individual", "worker-collective", "master-writing"}

type options struct {
	bin, work, svgDir, jsonOut string
	ranks                      []int
	speeds                     []float64
	speedRanks                 int
	speedSync                  bool
	seed                       int
	queries, shards            int
	results                    string
	startup, byteSeconds       float64
	writeBuffer                string
	mbs                        string
	mbsRanks                   []int
	suites                     string
	from                       string
}

func main() {
	var o options
	var ranks, speeds, mbsRanks string
	flag.StringVar(&o.bin, "bin", "bin", "directory holding blastfleet-engine (make build)")
	flag.StringVar(&o.work, "work", filepath.Join(os.TempDir(), "blastfleet-iobench"), "work directory (outputs and summaries)")
	flag.StringVar(&o.svgDir, "svg", "", "write the figures (SVG) into this directory")
	flag.StringVar(&o.jsonOut, "json", "", "also write every run as JSON to this file")
	flag.StringVar(&ranks, "ranks", "2,4,8,16,32,64", "rank counts (master included) of the strategies x ranks suite")
	flag.StringVar(&speeds, "speeds", "0.1,0.2,0.4,0.8,1.6,3.2,6.4,12.8,25.6", "compute speeds of the sweep")
	flag.IntVar(&o.speedRanks, "speed-ranks", 32, "ranks of the compute-speed sweep")
	flag.BoolVar(&o.speedSync, "speed-sync", false, "also sweep the speeds with --query-sync")
	flag.StringVar(&o.suites, "suites", "ranks,speed,mbs", "which suites to run: ranks, speed, mbs (the strategies with the default write buffer)")
	flag.StringVar(&o.mbs, "mbs", "4MiB", "--write-buffer of the mbs suite (the engine's default, the paper's MBS)")
	flag.StringVar(&mbsRanks, "mbs-ranks", "16,32,64", "rank counts of the mbs suite")
	flag.IntVar(&o.seed, "seed", 1, "--sim-seed of every run")
	flag.IntVar(&o.queries, "queries", 40, "--sim-queries")
	flag.IntVar(&o.shards, "shards", 32, "--sim-shards (one shard per task: --group-bytes 1, S3aSim's (query, fragment) tasks)")
	flag.StringVar(&o.results, "results", "1000-2000", "--sim-results (S3aSim §3.3: 1000 to 2000 per query)")
	flag.Float64Var(&o.startup, "startup", 0.005, "--sim-startup: seconds per task at speed 1")
	flag.Float64Var(&o.byteSeconds, "byte-seconds", 3e-8, "--sim-byte-seconds: seconds per result byte at speed 1 (scaled so one worker computes for about 25 s)")
	flag.StringVar(&o.writeBuffer, "write-buffer", "1", "--write-buffer (1: every query written once merged, as S3aSim)")
	flag.StringVar(&o.from, "from", "", "run nothing: print the report (and, with -svg, the figures) of a run saved with -json")
	flag.Parse()
	var saved *savedRun
	var err error
	if o.from != "" {
		// The saved run's flags first, then this command line's (-svg...).
		if saved, err = load(o.from); err == nil {
			if err = flag.CommandLine.Parse(saved.Args); err == nil {
				err = flag.CommandLine.Parse(os.Args[1:])
			}
		}
	}
	if err == nil {
		o.ranks, err = benchrun.Ranks(ranks)
	}
	if err == nil {
		o.speeds, err = floats(speeds)
	}
	if err == nil {
		o.mbsRanks, err = benchrun.Ranks(mbsRanks)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "iobench:", err)
		os.Exit(2)
	}
	start := time.Now()
	b := &bench{o: o, started: start}
	var replay func() error
	if saved != nil {
		replay = func() error {
			b.machine, b.points, b.started = saved.Machine, saved.Points, saved.Started
			return b.output()
		}
	}
	benchrun.Main("iobench", start, replay, b.run)
}

// point is one run of a suite.
type point struct {
	Suite    string        `json:"suite"`
	Strategy string        `json:"strategy"`
	Sync     bool          `json:"querySync"`
	Ranks    int           `json:"ranks"`
	Speed    float64       `json:"speed"`
	Run      *benchrun.Run `json:"run"`
}

type bench struct {
	o       options
	engine  string
	machine []string
	points  []*point
	started time.Time
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// args are one run's engine flags (benchrun adds --output and
// --summary-json).
func (b *bench) args(strategy string, sync bool, speed float64) []string {
	return b.argsWith(strategy, sync, speed, b.o.writeBuffer)
}

func (b *bench) argsWith(strategy string, sync bool, speed float64, writeBuffer string) []string {
	o := b.o
	a := []string{"--backend", "simulate", "--sim-seed", fmt.Sprint(o.seed), "--sim-queries", fmt.Sprint(o.queries),
		"--sim-shards", fmt.Sprint(o.shards), "--group-bytes", "1", "--sim-results", o.results,
		"--sim-startup", fmt.Sprint(o.startup), "--sim-byte-seconds", fmt.Sprint(o.byteSeconds),
		"--sim-speed", fmt.Sprint(speed), "--max-target-seqs", "100000", "--write-buffer", writeBuffer,
		"--strategy", strategy}
	if sync {
		a = append(a, "--query-sync")
	}
	return a
}

func (b *bench) run(ctx context.Context) error {
	var err error
	if b.engine, err = filepath.Abs(filepath.Join(b.o.bin, "blastfleet-engine")); err != nil {
		return err
	}
	if _, err := os.Stat(b.engine); err != nil {
		return fmt.Errorf("%s is missing (make build): %w", b.engine, err)
	}
	b.machine = benchrun.Machine(ctx)
	if strings.Contains(b.o.suites, "ranks") {
		for _, np := range b.o.ranks {
			for _, sync := range []bool{false, true} {
				for _, s := range strategies {
					if err := b.measure(ctx, "ranks", s, sync, np, 1); err != nil {
						return err
					}
				}
			}
		}
	}
	if strings.Contains(b.o.suites, "speed") {
		for _, speed := range b.o.speeds {
			for _, sync := range []bool{false, true} {
				if sync && !b.o.speedSync {
					continue
				}
				for _, s := range strategies {
					if err := b.measure(ctx, "speed", s, sync, b.o.speedRanks, speed); err != nil {
						return err
					}
				}
			}
		}
	}
	if strings.Contains(b.o.suites, "mbs") {
		for _, np := range b.o.mbsRanks {
			for _, s := range strategies {
				if err := b.measure(ctx, "mbs", s, false, np, 1); err != nil {
					return err
				}
			}
		}
	}
	if b.o.jsonOut != "" {
		if err := save(b.o.jsonOut, &savedRun{Args: os.Args[1:], Started: b.started, Machine: b.machine, Points: b.points}); err != nil {
			return err
		}
	}
	return b.output()
}

// output prints the report and writes the figures.
func (b *bench) output() error {
	b.report()
	if b.o.svgDir != "" {
		return b.plots()
	}
	return nil
}

func (b *bench) measure(ctx context.Context, suite, strategy string, sync bool, np int, speed float64) error {
	args := b.args(strategy, sync, speed)
	if suite == "mbs" {
		args = b.argsWith(strategy, sync, speed, b.o.mbs)
	}
	r, err := benchrun.Engine(ctx, b.engine, b.o.work, np, args)
	if err != nil {
		return err
	}
	b.logf("%s np=%d speed=%g %s sync=%v: engine wall %.2f s, process %.2f s (load %s)",
		suite, np, speed, strategy, sync, r.Summary.WallSeconds, r.Wall, r.Load)
	b.points = append(b.points, &point{Suite: suite, Strategy: strategy, Sync: sync, Ranks: np, Speed: speed, Run: r})
	return nil
}

func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 0) {
			return nil, fmt.Errorf("speed %q: want a number > 0", f)
		}
		out = append(out, x)
	}
	return out, nil
}
