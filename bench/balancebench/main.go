// Command balancebench compares the engine's dynamic scheduling
// (Algorithm 1) with the static splits LengthSplit and WeightSplit on
// skewed query sets (a few very long queries), as the Blue Gene/P paper's
// §V.C and Fig. 4 do: for each schedule, the maximum, mean and minimum
// worker (group) compute time and max/mean (the paper: 2.3 for both
// static splits, 1.8 dynamic; issue 8's target: dynamic at most 1.2).
//
// Three workloads: real BLAST on a synthetic skewed nucleotide set (a few
// very long queries with many hits among short ones: skewed.go), real
// BLAST on Debian's plast-example proteins (its two longest queries are 6
// to 7 times the median), and the simulate backend (a generated set with a
// few queries of 10-30 kb). For each it also replays the per-query costs
// (measured BLAST times; the model's compute times) through
// scheduler.GroupTimes and DynamicTimes with 8 groups, the paper's
// setting, which this 2-core machine cannot run with real BLAST.
// `make bench-balance` runs it through bench/balance.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/bench/benchrun"
)

var schedules = []string{"dynamic", "length-split", "weight-split"}

type options struct {
	bin, work, svgDir, jsonOut string
	blastRanks                 []int
	simRanks                   int
	replayGroups               int
	seed                       int
	simQueries                 int
	simSizes                   string
	simByteSeconds             float64
	backends                   string
	blastSets                  string
	from                       string
}

func main() {
	var o options
	var blastRanks string
	flag.StringVar(&o.bin, "bin", "bin", "directory holding blastfleet and blastfleet-engine (make build)")
	flag.StringVar(&o.work, "work", filepath.Join(os.TempDir(), "blastfleet-balancebench"), "work directory (databases, shards, caches, outputs; reused)")
	flag.StringVar(&o.svgDir, "svg", "", "write the figures (SVG) into this directory")
	flag.StringVar(&o.jsonOut, "json", "", "also write every run as JSON to this file")
	flag.StringVar(&o.backends, "backends", "blast,simulate", "which workloads to run: blast, simulate")
	flag.StringVar(&o.blastSets, "blast-sets", "skewed,plast", "real BLAST query sets: skewed (synthetic: a few very long, costly queries), plast (Debian's plast-example)")
	flag.StringVar(&blastRanks, "blast-ranks", "3,5", "rank counts of the real BLAST runs (1 master + workers; BLAST needs a core per worker, this machine has 2)")
	flag.IntVar(&o.simRanks, "sim-ranks", 9, "ranks of the simulate runs (9: 8 workers, the paper's 8 groups)")
	flag.IntVar(&o.replayGroups, "replay-groups", 8, "groups of the per-query cost replay")
	flag.IntVar(&o.seed, "seed", 1, "--sim-seed of the simulate runs (1: four queries of 16-30 kb among 64)")
	flag.IntVar(&o.simQueries, "sim-queries", 64, "--sim-queries")
	flag.StringVar(&o.simSizes, "sim-query-sizes", "100-1000:0.95,10000-30000:0.05", "--sim-query-sizes: a few very long queries among short ones")
	flag.Float64Var(&o.simByteSeconds, "sim-byte-seconds", 1e-7, "--sim-byte-seconds (scaled so one run takes about 15 s)")
	flag.StringVar(&o.from, "from", "", "run nothing: print the report (and, with -svg, the figures) of a run saved with -json")
	flag.Parse()
	var err error
	if o.blastRanks, err = benchrun.Ranks(blastRanks); err != nil {
		fmt.Fprintf(os.Stderr, "balancebench: -blast-ranks %q: %v\n", blastRanks, err)
		os.Exit(2)
	}
	start := time.Now()
	b := &bench{o: o, started: start}
	var replay func() error
	if o.from != "" {
		replay = func() error {
			if err := b.load(o.from); err != nil {
				return err
			}
			return b.output()
		}
	}
	benchrun.Main("balancebench", start, replay, b.run)
}

// run is one engine run of a schedule.
type run struct {
	Backend  string        `json:"backend"`
	Schedule string        `json:"schedule"`
	Ranks    int           `json:"ranks"`
	Run      *benchrun.Run `json:"run"`
}

// workload is one backend's query set and what the runs of it showed.
type workload struct {
	name    string   // "BLAST" or "simulate"
	about   []string // what the set is
	args    []string // the engine's flags but --schedule
	queries []string // ids, in order
	lengths []int
	costs   []float64 // per query, seconds: measured (BLAST) or modelled
	costOf  string    // where the costs come from
	shards  int       // tasks per query in the engine runs (one shard each)
	runs    []*run
	replay  []replayRow
}

type bench struct {
	o                 options
	engineBin, cliBin string
	machine           []string
	loads             []*workload
	started           time.Time
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (b *bench) run(ctx context.Context) error {
	var err error
	if b.engineBin, err = filepath.Abs(filepath.Join(b.o.bin, "blastfleet-engine")); err != nil {
		return err
	}
	b.cliBin, _ = filepath.Abs(filepath.Join(b.o.bin, "blastfleet"))
	for _, p := range []string{b.engineBin, b.cliBin} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s is missing (make build): %w", p, err)
		}
	}
	if err := os.MkdirAll(b.o.work, 0o755); err != nil {
		return err
	}
	b.machine = benchrun.Machine(ctx)
	if strings.Contains(b.o.backends, "blast") {
		for _, set := range strings.Split(b.o.blastSets, ",") {
			w, err := b.blastWorkload(ctx, strings.TrimSpace(set))
			if err != nil {
				return err
			}
			if err := b.runSchedules(ctx, w, b.o.blastRanks); err != nil {
				return err
			}
			b.loads = append(b.loads, w)
		}
	}
	if strings.Contains(b.o.backends, "simulate") {
		w, err := b.simWorkload()
		if err != nil {
			return err
		}
		if err := b.runSchedules(ctx, w, []int{b.o.simRanks}); err != nil {
			return err
		}
		b.loads = append(b.loads, w)
	}
	if b.o.jsonOut != "" {
		if err := b.save(b.o.jsonOut); err != nil {
			return err
		}
	}
	return b.output()
}

// output replays the costs, prints the report and writes the figures.
func (b *bench) output() error {
	for _, w := range b.loads {
		var err error
		if w.replay, err = replay(w.lengths, w.costs, b.o.replayGroups, w.shards); err != nil {
			return err
		}
	}
	b.report()
	if b.o.svgDir != "" {
		return b.plots()
	}
	return nil
}

// runSchedules runs the workload with every schedule at each rank count.
func (b *bench) runSchedules(ctx context.Context, w *workload, ranks []int) error {
	for _, np := range ranks {
		for _, s := range schedules {
			r, err := benchrun.Engine(ctx, b.engineBin, filepath.Join(b.o.work, "run"), np, append(append([]string{}, w.args...), "--schedule", s))
			if err != nil {
				return err
			}
			bal := benchrun.WorkerBalance(r.Summary)
			b.logf("%s np=%d %s: wall %.2f s, worker compute max %.2f mean %.2f min %.2f: max/mean %.2f (load %s)",
				w.name, np, s, r.Summary.WallSeconds, bal.Max, bal.Mean, bal.Min, bal.Ratio(), r.Load)
			w.runs = append(w.runs, &run{Backend: w.name, Schedule: s, Ranks: np, Run: r})
		}
	}
	return nil
}
