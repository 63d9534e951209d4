// Command enginebench measures blastfleet-engine against blastp side by side
// in one run (docs/benchmarks.md) and measures the recall of the top-N modes
// (docs/concepts.md#the-correctness-contract). `make bench` runs it through bench/engine.sh; the results
// are written up in docs/benchmarks.md.
//
// Timing: the ways run interleaved in rounds (the order rotates each round)
// and the median per way is reported, because absolute times on a shared
// machine drift between runs. Engine knobs run once each, spread over the
// rounds, and are compared with the default engine run of the same round.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

const (
	plastDB      = "/usr/share/doc/plast-example/db/tursiops.fa.gz"
	plastQueries = "/usr/share/doc/plast-example/db/query.fa.gz"
	allWays      = "a,a',b,b',c,c',d,d',e"
	outfmt       = "6 std"
	maxTarget    = 500
	// Columns of "6 std" (0-based): query, subject, E-value.
	qCol, sCol, eCol = 0, 1, 10
)

type options struct {
	bin, work    string
	rounds       int
	shards       int
	queryLimit   int
	dbFasta      string
	queryFasta   string
	ways         string
	mpi, knobs   bool
	timing       bool
	recall       bool
	recallShards int
	recallN      int
	fixedLetters int
	jsonOut      string
	workloads    string
	kubectl      bool
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin", "directory holding blastfleet and blastfleet-engine (make build)")
	flag.StringVar(&o.work, "work", filepath.Join(os.TempDir(), "blastfleet-bench"), "work directory (databases, shards, caches, outputs; reused across runs)")
	flag.IntVar(&o.rounds, "rounds", 3, "timing rounds; the median per way is reported")
	flag.StringVar(&o.dbFasta, "db-fasta", plastDB, "protein database FASTA (.gz or plain)")
	flag.StringVar(&o.queryFasta, "queries-fasta", plastQueries, "protein queries FASTA (.gz or plain)")
	flag.IntVar(&o.shards, "shards", 4, "shards of the database for the engine")
	flag.IntVar(&o.queryLimit, "query-limit", 0, "use only the first N queries (quick trial runs, or a workload sized to the machine; 0: all)")
	flag.StringVar(&o.ways, "ways", allWays, "the ways to time, by letter (a, the limit, is always timed)")
	flag.BoolVar(&o.mpi, "mpi", true, "also time the engine under mpirun -np 3 --oversubscribe in every round")
	flag.BoolVar(&o.knobs, "knobs", true, "time engine knobs once each (top-hits, fixed blocks, one shard per task)")
	flag.BoolVar(&o.timing, "timing", true, "run the side-by-side timing rounds")
	flag.BoolVar(&o.recall, "recall", true, "run the recall benchmark (synthetic nucleotide families)")
	flag.IntVar(&o.recallShards, "recall-shards", 5, "shards for the recall benchmark")
	flag.IntVar(&o.recallN, "recall-n", 50, "N (max_target_seqs) of the recall benchmark")
	flag.IntVar(&o.fixedLetters, "fixed-block-letters", 3000, "--block-letters of the fixed-blocks knob")
	flag.StringVar(&o.jsonOut, "json", "", "also write every measurement as JSON to this file")
	flag.StringVar(&o.workloads, "workloads", "", "run these synthetic workloads instead (comma-separated: a, b, c, or a workload's name such as a-megablast): every way side by side with BLAST+ in its own batches, as issue 28's contract")
	flag.BoolVar(&o.kubectl, "kubectl", true, "with -workloads, also time way 6: the campaign through kubectl apply on the local stack (blastfleet dev up, left running); -kubectl=false skips it")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	b := &bench{o: o}
	if err := b.run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "enginebench: error:", err)
		os.Exit(1)
	}
	fmt.Printf("\nTotal benchmark time: %.0f s\n", time.Since(start).Seconds())
}

// summary is the engine's --summary-json.
type summary = runrecord.Summary

// idle lists each worker's "other" phase: time waiting for work.
func idle(s *summary) string {
	var xs []string
	for _, r := range s.Ranks {
		if r.Role == "worker" {
			xs = append(xs, fmt.Sprintf("%.2f", r.Phases["other"]))
		}
	}
	return strings.Join(xs, ", ")
}

// result is one timed run.
type result struct {
	Way    string    `json:"way"`
	Round  int       `json:"round"`
	Wall   float64   `json:"wallSeconds"` // the process(es), start to exit
	CPU    float64   `json:"cpuSeconds"`  // user+sys of the process(es) and their children
	Parts  []float64 `json:"partWallSeconds,omitempty"`
	Chunks int32     `json:"chunks,omitempty"` // way 6: the campaign's ledger chunks
	// Timeline is way 6's milestones, seconds after kubectl apply.
	Timeline map[string]float64 `json:"timeline,omitempty"`
	Summary  *summary           `json:"summary,omitempty"`
	out      []byte
}

type way struct {
	name string
	run  func(ctx context.Context, tag string) (*result, error)
}

type bench struct {
	o                  options
	engineBin, cliBin  string
	dbFA, qFA, qEngine string
	unsharded, shardDB string
	groupAlias         string // every shard through one alias file, as the engine's one-group task sees it
	fixedCost          [2]float64
	cache              string
	results            []*result
	knobResults        []*result
	probes             []*result
	untrunc, exactTop  []byte
	big                map[string]bool // queries with more than maxTarget subjects untruncated
	want               []byte          // one blastp run of the file in BLAST+'s batches (the contract's reference)
	notes              []string
	stack              *stack // way 6's local stack (-workloads -kubectl)
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (b *bench) run(ctx context.Context) error {
	o := b.o
	var err error
	if b.engineBin, err = filepath.Abs(filepath.Join(o.bin, "blastfleet-engine")); err != nil {
		return err
	}
	b.cliBin, _ = filepath.Abs(filepath.Join(o.bin, "blastfleet"))
	inputs := []string{b.engineBin, b.cliBin, o.dbFasta, o.queryFasta}
	if o.workloads != "" {
		inputs = inputs[:2]
	}
	for _, p := range inputs {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s is missing (make build; make deps): %w", p, err)
		}
	}
	for _, p := range []string{"blastp", "blastn", "makeblastdb"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%s is not on PATH (make deps)", p)
		}
	}
	if o.mpi {
		if _, err := exec.LookPath("mpirun"); err != nil {
			b.logf("mpirun not found: skipping the MPI way")
			b.o.mpi = false
		}
	}
	if err := os.MkdirAll(o.work, 0o755); err != nil {
		return err
	}
	if o.workloads != "" {
		return b.runWorkloads(ctx, strings.Split(o.workloads, ","))
	}
	if err := b.prepare(ctx); err != nil {
		return err
	}
	b.printMachine(ctx)
	if o.timing {
		if err := b.timing(ctx); err != nil {
			return err
		}
	}
	var rec []recallRow
	if o.recall {
		if rec, err = b.recallBench(ctx); err != nil {
			return err
		}
		b.printRecall(rec)
	}
	if o.jsonOut != "" {
		data, _ := json.MarshalIndent(map[string]any{"rounds": b.results, "knobs": b.knobResults, "recall": rec}, "", "  ")
		if err := os.WriteFile(o.jsonOut, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// prepare builds the unsharded database, the shards, the query files, and
// the untruncated reference (to know which queries BLAST's truncation bites).
func (b *bench) prepare(ctx context.Context) error {
	w := b.o.work
	b.dbFA = filepath.Join(w, "db.fa")
	if err := gunzipTo(b.o.dbFasta, b.dbFA, 0); err != nil {
		return err
	}
	b.qFA = filepath.Join(w, "query.fa")
	if err := gunzipTo(b.o.queryFasta, b.qFA, b.o.queryLimit); err != nil {
		return err
	}
	b.qEngine = b.o.queryFasta
	if b.o.queryLimit > 0 {
		b.qEngine = b.qFA
	}
	b.logf("makeblastdb -parse_seqids (unsharded)")
	var err error
	if b.unsharded, err = refsearch.MakeDB(ctx, b.dbFA, "prot", w); err != nil {
		return err
	}
	b.shardDB = filepath.Join(w, fmt.Sprintf("shards-%d", b.o.shards))
	b.logf("blastfleet db shard --shards %d", b.o.shards)
	if out, err := exec.CommandContext(ctx, b.cliBin, "db", "shard", "--input", b.o.dbFasta, "--type", "prot",
		"--shards", fmt.Sprint(b.o.shards), "--output", b.shardDB).CombinedOutput(); err != nil {
		return fmt.Errorf("blastfleet db shard: %w: %s", err, out)
	}
	b.cache = filepath.Join(w, "cache")
	if b.groupAlias, err = writeGroupAlias(b.shardDB, filepath.Join(w, "group")); err != nil {
		return err
	}
	b.big = map[string]bool{}
	if !b.o.timing {
		return nil
	}
	b.logf("untruncated reference: blastp -num_threads 2 -max_target_seqs 100000")
	t := time.Now()
	if b.untrunc, err = refsearch.Search(ctx, "blastp", b.unsharded, b.qFA, outfmt,
		"-max_target_seqs", "100000", "-num_threads", "2"); err != nil {
		return err
	}
	b.logf("  %.1f s", time.Since(t).Seconds())
	b.exactTop = refsearch.TopN(b.untrunc, maxTarget, qCol, sCol)
	b.logf("the reference: blastp -max_target_seqs %d, one run of the file in BLAST+'s batches", maxTarget)
	t = time.Now()
	if b.want, err = refsearch.SearchBatches(ctx, "blastp", b.unsharded, b.qFA, outfmt,
		"-max_target_seqs", fmt.Sprint(maxTarget)); err != nil {
		return err
	}
	b.logf("  %.1f s", time.Since(t).Seconds())
	for q, n := range subjectsPerQuery(b.untrunc) {
		if n > maxTarget {
			b.big[q] = true
		}
	}
	return nil
}

func (b *bench) printMachine(ctx context.Context) {
	fmt.Println("## Machine")
	fmt.Println()
	fmt.Printf("- nproc: %s\n", strings.TrimSpace(cmdOut(ctx, "nproc")))
	for _, l := range strings.Split(cmdOut(ctx, "lscpu"), "\n") {
		if strings.HasPrefix(l, "Model name") {
			fmt.Printf("- CPU: %s\n", strings.TrimSpace(strings.SplitN(l, ":", 2)[1]))
		}
	}
	fmt.Printf("- BLAST+: %s\n", strings.TrimSpace(strings.SplitN(cmdOut(ctx, "blastp", "-version"), "\n", 2)[0]))
	if b.o.mpi {
		fmt.Printf("- OpenMPI: %s\n", strings.TrimSpace(strings.SplitN(cmdOut(ctx, "mpirun", "--version"), "\n", 2)[0]))
	}
	fmt.Printf("- Go: %s, GOMAXPROCS %d\n", runtime.Version(), runtime.GOMAXPROCS(0))
	fmt.Printf("- load average at start: %s\n", strings.TrimSpace(readFile("/proc/loadavg")))
	nq := strings.Count(readFile(b.qFA), ">")
	fmt.Printf("- workload: %d queries of %s against %s (%d shards for the engine), blastp, outfmt %q, max_target_seqs %d\n",
		nq, filepath.Base(b.o.queryFasta), filepath.Base(b.o.dbFasta), b.o.shards, outfmt, maxTarget)
	var bigs []string
	for q := range b.big {
		bigs = append(bigs, q)
	}
	sort.Strings(bigs)
	fmt.Printf("- queries with more than %d subjects in an untruncated run (max_target_seqs 100000): %d %v\n",
		maxTarget, len(bigs), bigs)
	fmt.Println()
}

// --- the ways ---------------------------------------------------------------

func (b *bench) outPath(tag string) string { return filepath.Join(b.o.work, "out", tag+".tsv") }

// plain is how the plain BLAST+ ways run a search: the program, its
// options beside -db, -query, -num_threads and -out, and its environment
// (BATCH_SIZE).
type plain struct {
	program string
	db      string
	args    []string
	env     []string
}

// plastSearch is the plast-example workload's search; alone searches each
// query alone (blast.AloneEnv), as the engine does.
func (b *bench) plastSearch(alone bool) plain {
	p := plain{program: "blastp", db: b.unsharded, args: []string{"-outfmt", outfmt, "-max_target_seqs", fmt.Sprint(maxTarget)}}
	if alone {
		p.env = []string{blast.AloneEnv}
	}
	return p
}

func (p plain) cmd(ctx context.Context, query, out string, threads int) *exec.Cmd {
	args := append([]string{"-db", p.db, "-query", query}, p.args...)
	cmd := exec.CommandContext(ctx, p.program, append(args, "-num_threads", fmt.Sprint(threads), "-out", out)...)
	cmd.Env = append(os.Environ(), "BLAST_USAGE_REPORT=false")
	cmd.Env = append(cmd.Env, p.env...)
	return cmd
}

// blast runs one BLAST+ process on all queries.
func (b *bench) blast(p plain, threads int) func(ctx context.Context, tag string) (*result, error) {
	return func(ctx context.Context, tag string) (*result, error) {
		out := b.outPath(tag)
		r, err := timed(p.cmd(ctx, b.qFA, out, threads))
		if err != nil {
			return nil, err
		}
		r.out, err = os.ReadFile(out)
		return r, err
	}
}

// split runs the two halves of the queries (split by letters at a record
// boundary) as two single-threaded BLAST+ processes at once, and
// concatenates their outputs: how cloud tools parallelise BLAST.
func (b *bench) split(p plain) func(ctx context.Context, tag string) (*result, error) {
	return func(ctx context.Context, tag string) (*result, error) {
		halves, err := b.halves()
		if err != nil {
			return nil, err
		}
		type part struct {
			r   *result
			err error
		}
		ch := make([]chan part, 2)
		t := time.Now()
		for i, h := range halves {
			ch[i] = make(chan part, 1)
			out := b.outPath(fmt.Sprintf("%s-half%d", tag, i))
			cmd := p.cmd(ctx, h, out, 1)
			go func(i int) {
				r, err := timed(cmd)
				if err == nil {
					r.out, err = os.ReadFile(out)
				}
				ch[i] <- part{r, err}
			}(i)
		}
		res := &result{}
		for i := range ch {
			p := <-ch[i]
			if p.err != nil {
				return nil, p.err
			}
			res.CPU += p.r.CPU
			res.Parts = append(res.Parts, p.r.Wall)
			res.out = append(res.out, p.r.out...)
		}
		res.Wall = time.Since(t).Seconds()
		return res, nil
	}
}

func (b *bench) halves() ([]string, error) {
	a, c := filepath.Join(b.o.work, "query-half0.fa"), filepath.Join(b.o.work, "query-half1.fa")
	data, err := os.ReadFile(b.qFA)
	if err != nil {
		return nil, err
	}
	recs := strings.SplitAfter(string(data), "\n>")
	var letters []int
	total := 0
	for _, r := range recs {
		n := 0
		for _, l := range strings.Split(r, "\n")[1:] {
			if !strings.HasPrefix(l, ">") {
				n += len(strings.TrimSpace(l))
			}
		}
		letters = append(letters, n)
		total += n
	}
	cut, acc := 0, 0
	for cut < len(recs)-1 && acc+letters[cut] <= total/2 {
		acc += letters[cut]
		cut++
	}
	cut = max(cut, 1)
	first := strings.TrimSuffix(strings.Join(recs[:cut], ""), ">")
	second := ">" + strings.Join(recs[cut:], "")
	if err := os.WriteFile(a, []byte(first), 0o644); err != nil {
		return nil, err
	}
	return []string{a, c}, os.WriteFile(c, []byte(second), 0o644)
}

// engine runs blastfleet-engine in-process (1 master + 2 workers) or under
// mpirun -np 3, with extra flags.
func (b *bench) engine(mpi bool, extra ...string) func(ctx context.Context, tag string) (*result, error) {
	return func(ctx context.Context, tag string) (*result, error) {
		return b.engineOn(ctx, tag, mpi, "blastp", b.shardDB, b.qEngine, maxTarget, extra...)
	}
}

func (b *bench) engineOn(ctx context.Context, tag string, mpi bool, program, db, queries string, mts int, extra ...string) (*result, error) {
	out := b.outPath(tag)
	sj := filepath.Join(b.o.work, "out", tag+".summary.json")
	args := []string{"--database", db, "--queries", queries, "--program", program,
		"--outfmt", outfmt, "--max-target-seqs", fmt.Sprint(mts), "--output", out,
		"--summary-json", sj, "--cache-dir", b.cache}
	args = append(args, extra...)
	var cmd *exec.Cmd
	if mpi {
		argv := append([]string{"-np", "3", "--oversubscribe", b.engineBin}, args...)
		cmd = exec.CommandContext(ctx, "mpirun", argv...)
		cmd.Env = append(os.Environ(), "OMPI_MCA_mpi_yield_when_idle=1", "OMPI_ALLOW_RUN_AS_ROOT=1",
			"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none", "OMPI_MCA_pml=ob1")
	} else {
		cmd = exec.CommandContext(ctx, b.engineBin, append([]string{"--workers", "2"}, args...)...)
	}
	os.Remove(out)
	r, err := timed(cmd)
	if err != nil {
		return nil, err
	}
	if r.out, err = os.ReadFile(out); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(sj)
	if err != nil {
		return nil, err
	}
	r.Summary = &summary{}
	return r, json.Unmarshal(data, r.Summary)
}

// timed runs cmd and measures its wall and CPU time (user+sys, including
// the children it waited for: BLAST under the engine, ranks under mpirun).
func timed(cmd *exec.Cmd) (*result, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if cmd.Stdout == nil {
		cmd.Stdout = io.Discard
	}
	t := time.Now()
	err := cmd.Run()
	wall := time.Since(t).Seconds()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, tail(stderr.String(), 2000))
	}
	r := &result{Wall: wall}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	return r, nil
}

// --- timing rounds ----------------------------------------------------------

const (
	wayT1      = "a. blastp -num_threads 1"
	wayT1Alone = "a'. blastp -num_threads 1, each query alone (BATCH_SIZE=1, as the engine)"
	wayT2      = "b. blastp -num_threads 2"
	wayT2Alone = "b'. blastp -num_threads 2, each query alone"
	waySplit   = "c. two halves, two blastp at once"
	waySplitAl = "c'. two halves as c, each query alone"
	wayEngine  = "d. engine, 1 master + 2 workers (in-process)"
	wayMPI     = "d'. engine, mpirun -np 3 --oversubscribe"
	wayBatches = "e. engine as d, each query alone (--batching alone: the contract before issue 28)"
	probeGroup = "blastp -num_threads 1 on all shards through one alias file (the engine's one-group task)"
)

type knob struct {
	name  string
	flags []string
}

func (b *bench) timing(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Join(b.o.work, "out"), 0o755); err != nil {
		return err
	}
	// Warm the workers' shard caches (and the page cache) once.
	b.logf("engine warm-up run (cold shard cache)")
	warm, err := b.engine(false)(ctx, "warmup")
	if err != nil {
		return err
	}
	b.logf("  %.1f s (cache misses %d)", warm.Wall, misses(warm.Summary))

	batched, alone := b.plastSearch(false), b.plastSearch(true)
	ways := []way{{wayT1, b.blast(batched, 1)}, {wayT1Alone, b.blast(alone, 1)}, {wayT2, b.blast(batched, 2)},
		{wayT2Alone, b.blast(alone, 2)}, {waySplit, b.split(batched)}, {waySplitAl, b.split(alone)}, {wayEngine, b.engine(false)}}
	if b.o.mpi {
		ways = append(ways, way{wayMPI, b.engine(true)})
	}
	ways = append(ways, way{wayBatches, b.engine(false, "--batching", "alone")})
	ways = slices.DeleteFunc(ways, func(w way) bool { return !b.wants(w.name) })
	if err := b.fixedCosts(ctx); err != nil {
		return err
	}
	var knobs []knob
	if b.o.knobs {
		knobs = []knob{
			{"--top-hits overfetch (=4: the group searched with 2000)", []string{"--top-hits", "overfetch"}},
			{"--top-hits exact (the group searched untruncated)", []string{"--top-hits", "exact"}},
			{fmt.Sprintf("--block-letters %d (fixed blocks)", b.o.fixedLetters), []string{"--block-letters", fmt.Sprint(b.o.fixedLetters)}},
			{fmt.Sprintf("--group-bytes 1 (one shard per task: %d tasks per block)", b.o.shards), []string{"--group-bytes", "1"}},
		}
	}
	for round := 0; round < b.o.rounds; round++ {
		// Rotate the order so no way always runs first (or after the same one).
		order := slices.Clone(ways)
		k := round % len(order)
		order = append(order[k:], order[:k]...)
		for _, wy := range order {
			tag := fmt.Sprintf("%s-r%d", short(wy.name), round)
			b.logf("round %d: %s", round+1, wy.name)
			r, err := wy.run(ctx, tag)
			if err != nil {
				return err
			}
			r.Way, r.Round = wy.name, round
			b.results = append(b.results, r)
			b.logf("  %.1f s wall, %.1f s CPU", r.Wall, r.CPU)
		}
		if round == min(1, b.o.rounds-1) {
			// Once: the engine's view of the database (every shard through
			// one alias) searched as in way a, to separate the cost of
			// sharding from the cost of running two searches at once.
			b.logf("round %d probe: %s", round+1, probeGroup)
			out := b.outPath(fmt.Sprintf("probe-group-r%d", round))
			r, err := timed(exec.CommandContext(ctx, "blastp", "-db", b.groupAlias, "-query", b.qFA, "-outfmt", outfmt,
				"-max_target_seqs", fmt.Sprint(maxTarget), "-num_threads", "1", "-out", out))
			if err != nil {
				return err
			}
			if r.out, err = os.ReadFile(out); err != nil {
				return err
			}
			r.Way, r.Round = probeGroup, round
			b.probes = append(b.probes, r)
			b.logf("  %.1f s wall", r.Wall)
		}
		// This round's share of the knobs, right after its default engine run.
		for i, kn := range knobs {
			if i%b.o.rounds != round {
				continue
			}
			b.logf("round %d knob: %s", round+1, kn.name)
			r, err := b.engine(false, kn.flags...)(ctx, fmt.Sprintf("knob%d-r%d", i, round))
			if err != nil {
				return err
			}
			r.Way, r.Round = kn.name, round
			b.knobResults = append(b.knobResults, r)
			b.logf("  %.1f s wall", r.Wall)
		}
	}
	b.printTiming(knobs)
	return nil
}

// printTargets sets the engine's medians against the limits and the
// other ways that keep the same contract (each query alone).
func (b *bench) printTargets(limit, limitAlone float64) {
	med := func(n string) float64 { return median(walls(b.byWay(n))) }
	line := func(n string) {
		if len(b.byWay(n)) == 0 {
			return
		}
		m := med(n)
		text := fmt.Sprintf("- %s: %.3f x the limit", letter(n), m/limit)
		if limitAlone > 0 {
			text += fmt.Sprintf(", %.3f x the limit alone", m/limitAlone)
		}
		var against []string
		for _, o := range []string{wayT2Alone, waySplitAl, wayT2, waySplit} {
			if len(b.byWay(o)) > 0 {
				against = append(against, fmt.Sprintf("%s %.3f", letter(o), m/med(o)))
			}
		}
		if len(against) > 0 {
			text += "; against " + strings.Join(against, ", ")
		}
		fmt.Println(text)
	}
	fmt.Println("The engine's medians (below 1 against a way: faster than it):")
	fmt.Println()
	line(wayEngine)
	line(wayMPI)
	fmt.Println()
}

// letter is a way's letter: "b'" of "b'. blastp -num_threads 2, ...".
func letter(way string) string { return way[:strings.Index(way, ".")] }

// wants says whether -ways asks for way; a, the limit, always runs.
func (b *bench) wants(way string) bool {
	l := letter(way)
	return l == "a" || slices.Contains(strings.Split(b.o.ways, ","), l)
}

func misses(s *summary) int64 {
	var n int64
	for _, r := range s.Ranks {
		n += r.CacheMisses
	}
	return n
}

func short(name string) string {
	switch name {
	case wayT1:
		return "a-blastp-t1"
	case wayT1Alone:
		return "a-blastp-t1-alone"
	case wayT2:
		return "b-blastp-t2"
	case wayT2Alone:
		return "b-blastp-t2-alone"
	case waySplit:
		return "c-split"
	case waySplitAl:
		return "c-split-alone"
	case wayEngine:
		return "d-engine"
	case wayMPI:
		return "d-engine-mpi"
	}
	return "x"
}

func (b *bench) byWay(name string) []*result {
	var rs []*result
	for _, r := range b.results {
		if r.Way == name {
			rs = append(rs, r)
		}
	}
	return rs
}

// medianRun returns the run with the median wall time.
func medianRun(rs []*result) *result {
	s := slices.Clone(rs)
	sort.Slice(s, func(i, j int) bool { return s[i].Wall < s[j].Wall })
	return s[(len(s)-1)/2]
}

// median is 0 for no values (a way not timed).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func walls(rs []*result) []float64 {
	var w []float64
	for _, r := range rs {
		w = append(w, r.Wall)
	}
	return w
}

func (b *bench) printTiming(knobs []knob) {
	t1 := median(walls(b.byWay(wayT1)))
	limit := t1 / 2
	t1a := median(walls(b.byWay(wayT1Alone)))
	limitAlone := t1a / 2
	fmt.Printf("## Side by side (%d rounds, order rotated each round; median per way)\n\n", b.o.rounds)
	fmt.Printf("The limit = median T1 / 2 = %.2f s / 2 = **%.2f s**. The limit under the contract (each query alone, as the engine searches) = median T1' / 2 = %.2f s / 2 = **%.2f s**.\n\n",
		t1, limit, t1a, limitAlone)
	fmt.Println("| way | median wall (s) | rounds (s) | / limit | / limit alone | CPU s (median) | CPU / T1 | output vs each query alone | recall of exact top 500 |")
	fmt.Println("| --- | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: |")
	names := []string{wayT1, wayT1Alone, wayT2, wayT2Alone, waySplit, waySplitAl, wayEngine}
	if b.o.mpi {
		names = append(names, wayMPI)
	}
	names = append(names, wayBatches)
	for _, n := range names {
		rs := b.byWay(n)
		if len(rs) == 0 {
			continue
		}
		m := median(walls(rs))
		var rounds []string
		var cpus []float64
		for _, r := range rs {
			rounds = append(rounds, fmt.Sprintf("%.1f", r.Wall))
			cpus = append(cpus, r.CPU)
		}
		fmt.Printf("| %s | %.2f | %s | %.3f | %.3f | %.1f | %.3f | %s | %s |\n", n, m, strings.Join(rounds, ", "),
			m/limit, m/limitAlone, median(cpus), median(cpus)/t1, b.compareAll(rs), b.exactRecall(medianRun(rs).out))
	}
	fmt.Println()
	if e, old := median(walls(b.byWay(wayEngine))), median(walls(b.byWay(wayBatches))); old > 0 && e > 0 {
		fmt.Printf("Searching each query alone (d) against BLAST's own batches (e), same engine, same rounds: %.3f x the wall time.\n\n", e/old)
	}
	b.printTargets(limit, limitAlone)
	fmt.Println(b.truncationNote())
	fmt.Println()
	for _, n := range []string{waySplit, waySplitAl} {
		var s []string
		for _, r := range b.byWay(n) {
			s = append(s, fmt.Sprintf("%.1f+%.1f", r.Parts[0], r.Parts[1]))
		}
		if len(s) > 0 {
			fmt.Printf("Way %s each half's own wall per round (s): %s.\n\n", letter(n), strings.Join(s, ", "))
		}
	}
	fmt.Println("Every engine run (from --summary-json; BLAST s is the workers' summed BLAST wall time; worker idle is each worker's time outside any phase):")
	fmt.Println()
	fmt.Println("| way | round | wall (s) | engine wall (s) | parallel efficiency | write share | blocks | tasks | BLAST s / T1 | worker idle (s) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, n := range []string{wayEngine, wayMPI, wayBatches} {
		for _, r := range b.byWay(n) {
			s := r.Summary
			fmt.Printf("| %s | %d | %.2f | %.2f | %.3f | %.4f%% | %d | %d | %.3f | %s |\n", n, r.Round+1, r.Wall, s.WallSeconds,
				s.Efficiency, 100*s.WriteShare, s.Blocks, s.Tasks, s.BlastSeconds()/t1, idle(s))
		}
	}
	fmt.Println()
	fmt.Printf("A BLAST invocation's fixed cost (blastp, one 27-letter query, median of 7): %.3f s on the unsharded database, %.3f s on the %d shards through one alias file.\n\n",
		b.fixedCost[0], b.fixedCost[1], b.o.shards)
	for _, p := range b.probes {
		var t1same float64
		for _, r := range b.byWay(wayT1) {
			if r.Round == p.Round {
				t1same = r.Wall
			}
		}
		fmt.Printf("Probe, round %d: %s: %.2f s = %.3f x way a of the same round (%.2f s), %.3f x median T1; output %s.\n\n",
			p.Round+1, p.Way, p.Wall, p.Wall/t1same, t1same, p.Wall/t1, b.compare(p.out))
	}

	// Engine details: the median default run's and MPI run's ranks.
	for _, n := range []string{wayEngine, wayMPI} {
		rs := b.byWay(n)
		if len(rs) == 0 {
			continue
		}
		mr := medianRun(rs)
		b.printRanks(n+fmt.Sprintf(", median run (round %d)", mr.Round+1), mr, t1)
	}

	if len(b.knobResults) > 0 {
		fmt.Println("## Engine knobs (one run each, next to the default engine run of the same round)")
		fmt.Println()
		fmt.Println("| knob | wall (s) | / default engine same round | / limit | efficiency | write share | blocks | tasks | BLAST s (sum) | worker idle (s) | output | recall of exact top 500 |")
		fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |")
		for _, r := range b.knobResults {
			var base *result
			for _, e := range b.byWay(wayEngine) {
				if e.Round == r.Round {
					base = e
				}
			}
			s := r.Summary
			fmt.Printf("| %s | %.2f | %.3f | %.3f | %.3f | %.4f%% | %d | %d | %.1f | %s | %s | %s |\n", r.Way, r.Wall, r.Wall/base.Wall,
				r.Wall/limit, s.Efficiency, 100*s.WriteShare, s.Blocks, s.Tasks, s.BlastSeconds(), idle(s), b.compare(r.out), b.exactRecall(r.out))
		}
		fmt.Printf("\nWorker idle is each worker's time outside any phase (waiting for work, mostly at the end).\n\n")
	}
	for _, n := range b.notes {
		fmt.Println(n)
	}
	fmt.Println()
}

func (b *bench) printRanks(title string, r *result, t1 float64) {
	s := r.Summary
	fmt.Printf("### %s\n\n", title)
	fmt.Printf("top hits %s; %d shards in %d group(s), %d blocks, %d tasks, %d hits; engine wall %.2f s (process %.2f s); "+
		"BLAST seconds summed over workers %.1f s = %.3f x T1\n\n",
		s.TopHits, s.Shards, s.ShardGroups, s.Blocks, s.Tasks, s.Hits, s.WallSeconds, r.Wall, s.BlastSeconds(), s.BlastSeconds()/t1)
	fmt.Println("| rank | role | tasks | wall | setup | distribution | compute | merge | gather | write | sync | other |")
	fmt.Println("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, rk := range s.Ranks {
		fmt.Printf("| %d | %s | %d | %.3f |", rk.Rank, rk.Role, rk.Tasks, rk.WallSeconds)
		for _, p := range []string{"setup", "distribution", "compute", "merge", "gather", "write", "sync", "other"} {
			fmt.Printf(" %.3f |", rk.Phases[p])
		}
		fmt.Println()
	}
	fmt.Println()
}

// compareAll compares every round's output of a way with the reference.
func (b *bench) compareAll(rs []*result) string {
	seen := map[string]int{}
	var order []string
	for _, r := range rs {
		c := b.compare(r.out)
		if seen[c] == 0 {
			order = append(order, c)
		}
		seen[c]++
	}
	if len(order) == 1 {
		return order[0]
	}
	var s []string
	for _, c := range order {
		s = append(s, fmt.Sprintf("%d runs: %s", seen[c], c))
	}
	return strings.Join(s, "; ")
}

// compare says how an output relates to the reference (one run of the file)
// and, when it differs, to the exact top 500 of the untruncated run.
func (b *bench) compare(got []byte) string {
	if bytes.Equal(got, b.want) {
		return "byte-identical"
	}
	if refsearch.SameUpToTies(got, b.want, qCol, sCol, eCol) == "" {
		return fmt.Sprintf("same lines; order differs only inside printed E-value ties (%d queries)", diffQueries(got, b.want))
	}
	if bytes.Equal(got, b.exactTop) {
		return "no: byte-identical to the exact top 500 of the untruncated run"
	}
	if refsearch.SameUpToTies(got, b.exactTop, qCol, sCol, eCol) == "" {
		return fmt.Sprintf("no: the exact top 500 of the untruncated run, order differing only inside printed E-value ties (%d queries)",
			diffQueries(got, b.exactTop))
	}
	note := fmt.Sprintf("First difference against each query alone: %s", refsearch.Diff(got, b.want))
	if !slices.Contains(b.notes, note) {
		b.notes = append(b.notes, note)
	}
	return fmt.Sprintf("differs in %d queries, and from the exact top 500 in %d", diffQueries(got, b.want), diffQueries(got, b.exactTop))
}

// diffQueries counts the queries whose lines differ.
func diffQueries(got, want []byte) int {
	g, w := byQuery(got), byQuery(want)
	n := 0
	for q := range union(g, w) {
		if !bytes.Equal(g[q], w[q]) {
			n++
		}
	}
	return n
}

// exactRecall is the recall of the exact top 500 (of the untruncated run).
func (b *bench) exactRecall(got []byte) string {
	return fmt.Sprintf("%.4f", refsearch.Recall(got, b.exactTop, qCol, sCol))
}

// truncationNote says where BLAST's -max_target_seqs 500 (way b) departs
// from the exact top 500 of the untruncated run.
func (b *bench) truncationNote() string {
	g, w := byQuery(b.want), byQuery(b.exactTop)
	per := subjectsPerQuery(b.untrunc)
	var qs []string
	missing := 0
	for q := range union(g, w) {
		if bytes.Equal(g[q], w[q]) {
			continue
		}
		have := refsearch.Pairs(g[q], qCol, sCol)
		for p := range refsearch.Pairs(w[q], qCol, sCol) {
			if !have[p] {
				missing++
			}
		}
		qs = append(qs, fmt.Sprintf("%s (%d subjects untruncated)", q, per[q]))
	}
	sort.Strings(qs)
	if len(qs) == 0 {
		return "Way b's output equals the exact top 500 of the untruncated run."
	}
	return fmt.Sprintf("Way b (BLAST's -max_target_seqs 500) differs from the exact top 500 of the untruncated run in %d queries, "+
		"missing %d of its (query, subject) pairs: %s. Recall of b: %s.",
		len(qs), missing, strings.Join(qs, ", "), b.exactRecall(b.want))
}

// --- recall benchmark -------------------------------------------------------

type recallRow struct {
	Way          string  `json:"way"`
	Recall       float64 `json:"recall"`
	Wall         float64 `json:"wallSeconds"`
	TopHits      string  `json:"topHits,omitempty"`
	Tasks        int     `json:"tasks,omitempty"`
	EqualsExact  bool    `json:"equalsExactTopN"`
	SubjectsKept int     `json:"pairs"`
}

func (b *bench) recallBench(ctx context.Context) ([]recallRow, error) {
	n := b.o.recallN
	dir := filepath.Join(b.o.work, "recall")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	fa, qfa := filepath.Join(dir, "db.fa"), filepath.Join(dir, "queries.fa")
	set := recallFamilies()
	db, q := set.write()
	if err := os.WriteFile(fa, db, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(qfa, q, 0o644); err != nil {
		return nil, err
	}
	dbtype, program := "nucl", "blastn"
	b.logf("recall: makeblastdb and %d shards", b.o.recallShards)
	unsharded, err := refsearch.MakeDB(ctx, fa, dbtype, dir)
	if err != nil {
		return nil, err
	}
	shards := filepath.Join(dir, fmt.Sprintf("shards-%d", b.o.recallShards))
	if out, err := exec.CommandContext(ctx, b.cliBin, "db", "shard", "--input", fa, "--type", dbtype,
		"--shards", fmt.Sprint(b.o.recallShards), "--output", shards, "--force").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("blastfleet db shard: %w: %s", err, out)
	}
	b.logf("recall: untruncated %s", program)
	t := time.Now()
	untrunc, err := refsearch.Search(ctx, program, unsharded, qfa, outfmt, "-max_target_seqs", "100000", "-num_threads", "2")
	if err != nil {
		return nil, err
	}
	untruncWall := time.Since(t).Seconds()
	exact := refsearch.TopN(untrunc, n, qCol, sCol)
	per := subjectsPerQuery(untrunc)
	var counts []float64
	for _, c := range per {
		counts = append(counts, float64(c))
	}
	var rows []recallRow
	add := func(name string, out []byte, wall float64, s *summary) {
		r := recallRow{Way: name, Recall: refsearch.Recall(out, exact, qCol, sCol), Wall: wall,
			EqualsExact: bytes.Equal(out, exact), SubjectsKept: len(refsearch.Pairs(out, qCol, sCol))}
		if s != nil {
			r.TopHits, r.Tasks = s.TopHits, s.Tasks
		}
		rows = append(rows, r)
	}
	add("unsharded "+program+", untruncated (max_target_seqs 100000): the exact order", untrunc, untruncWall, nil)
	b.logf("recall: %s -max_target_seqs %d", program, n)
	t = time.Now()
	own, err := refsearch.Search(ctx, program, unsharded, qfa, outfmt, "-max_target_seqs", fmt.Sprint(n), "-num_threads", "2")
	if err != nil {
		return nil, err
	}
	add(fmt.Sprintf("unsharded %s -max_target_seqs %d (BLAST's own heuristic)", program, n), own, time.Since(t).Seconds(), nil)
	for _, th := range []struct{ name, flag string }{
		{"engine, default --top-hits (auto: overfetch=4 with several groups)", ""},
		{"engine, --top-hits overfetch=1 (each shard searched with N)", "overfetch=1"},
		{"engine, --top-hits exact (shards searched untruncated)", "exact"},
	} {
		extra := []string{"--group-bytes", "1"}
		if th.flag != "" {
			extra = append(extra, "--top-hits", th.flag)
		}
		tag := "recall-" + strings.ReplaceAll(strings.ReplaceAll(th.flag, "=", ""), "-", "")
		if th.flag == "" {
			tag = "recall-default"
		}
		b.logf("recall: %s", th.name)
		r, err := b.engineOn(ctx, tag, false, program, shards, qfa, n, extra...)
		if err != nil {
			return nil, err
		}
		add(th.name+fmt.Sprintf(", %d shards, --group-bytes 1", b.o.recallShards), r.out, r.Wall, r.Summary)
	}
	recallSummary = fmt.Sprintf("%s; blastn (megablast), outfmt %q; subjects per query untruncated: min %.0f, median %.0f, max %.0f; N = %d",
		set, outfmt, slices.Min(counts), median(counts), slices.Max(counts), n)
	return rows, nil
}

var recallSummary string

func (b *bench) printRecall(rows []recallRow) {
	fmt.Printf("## Recall of the exact top N\n\n%s.\n\n", recallSummary)
	fmt.Println("| way | recall of exact top N | = exact top N, byte for byte | (query, subject) pairs | wall (s) | tasks |")
	fmt.Println("| --- | ---: | --- | ---: | ---: | ---: |")
	for _, r := range rows {
		tasks := ""
		if r.Tasks > 0 {
			tasks = fmt.Sprint(r.Tasks)
		}
		eq := "no"
		if r.EqualsExact {
			eq = "yes"
		}
		if strings.Contains(r.Way, "untruncated (") {
			eq = "(all hits)"
		}
		fmt.Printf("| %s | %.4f | %s | %d | %.1f | %s |\n", r.Way, r.Recall, eq, r.SubjectsKept, r.Wall, tasks)
	}
	fmt.Println()
}

// writeGroupAlias writes an alias file listing every shard of a sharded
// database with the whole database's statistics: the -db of the engine's
// task when all shards form one group.
func writeGroupAlias(shardDB, path string) (string, error) {
	data, err := os.ReadFile(filepath.Join(shardDB, "manifest.json"))
	if err != nil {
		return "", err
	}
	var m struct {
		Sequences int64  `json:"sequences"`
		Letters   int64  `json:"letters"`
		Build     string `json:"build"` // the shard files' folder
		Shards    []struct {
			DBName string `json:"dbName"`
		} `json:"shards"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("%s/manifest.json: %w", shardDB, err)
	}
	var names []string
	for _, sh := range m.Shards {
		names = append(names, filepath.Join(shardDB, filepath.FromSlash(m.Build), sh.DBName))
	}
	text := fmt.Sprintf("TITLE all shards\nDBLIST %s\nSTATS_NSEQ %d\nSTATS_TOTLEN %d\n", strings.Join(names, " "), m.Sequences, m.Letters)
	return path, os.WriteFile(path+".pal", []byte(text), 0o644)
}

// fixedCosts measures a BLAST invocation's fixed cost: the median wall of
// blastp with one 27-letter query, on the unsharded database and on the
// shards' group alias.
func (b *bench) fixedCosts(ctx context.Context) error {
	q := filepath.Join(b.o.work, "tiny.fa")
	if err := os.WriteFile(q, []byte(">tiny\nMKVLAAGIVGLLLAQPAHAESKWLTEQ\n"), 0o644); err != nil {
		return err
	}
	for i, db := range []string{b.unsharded, b.groupAlias} {
		var ws []float64
		for range 7 {
			r, err := timed(exec.CommandContext(ctx, "blastp", "-db", db, "-query", q, "-outfmt", outfmt,
				"-max_target_seqs", fmt.Sprint(maxTarget)))
			if err != nil {
				return err
			}
			ws = append(ws, r.Wall)
		}
		b.fixedCost[i] = median(ws)
	}
	return nil
}

// --- helpers ----------------------------------------------------------------

func subjectsPerQuery(out []byte) map[string]int {
	n := map[string]int{}
	for p := range refsearch.Pairs(out, qCol, sCol) {
		n[p[0]]++
	}
	return n
}

// byQuery splits tabular output into each query's lines.
func byQuery(out []byte) map[string][]byte {
	m := map[string][]byte{}
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		q, _, _ := bytes.Cut(line, []byte("\t"))
		m[string(q)] = append(m[string(q)], line...)
	}
	return m
}

func union(a, b map[string][]byte) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// gunzipTo writes the first limit records (0: all) of a gzip FASTA.
func gunzipTo(gz, out string, limit int) error {
	f, err := os.Open(gz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	recs := 0
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, ">") {
			recs++
			if limit > 0 && recs > limit {
				break
			}
		}
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, buf.Bytes()) {
		return nil // keep the mtime: makeblastdb inputs stay as they were
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

func cmdOut(ctx context.Context, name string, args ...string) string {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return "?"
	}
	return string(out)
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
