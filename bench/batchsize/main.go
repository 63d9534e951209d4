// Command batchsize measures blastn's time against its query batch size,
// to choose the fixed BATCH_SIZE B per blastn task (issue 28, docs/concepts.md#the-correctness-contract): the engine cuts chunks and blocks at BLAST's batch boundaries, so it
// wants B as small as possible (more batches, more freedom to segment the
// queries) while one thread pays at most about 2% over the best B.
//
// On workload (a) of the benchmarks (test/support/synth.GenomeSet: 20
// bacterial-like genomes, 44 Mb, 300-letter queries of held-out strains),
// it times `BATCH_SIZE=B blastn -task T -num_threads 1` for each B, and
// plain blastn (no BATCH_SIZE: BLAST's own adaptive batches), in rounds
// whose order rotates, and prints the medians and their ratios as markdown
// (docs/benchmarks.md). `make bench-batchsize` runs it.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

const plain = 0 // B of plain blastn (no BATCH_SIZE)

func main() {
	work := flag.String("work", filepath.Join(os.TempDir(), "blastfleet-batchsize"), "work directory (database and outputs; reused)")
	tasks := flag.String("tasks", "megablast=12000,dc-megablast=1000,blastn=600", "task=queries, comma-separated: the tasks and each one's query count")
	sizes := flag.String("sizes", "5000,10000,20000,50000,100000,200000,500000,1000000,2000000,5000000", "batch sizes B (letters)")
	rounds := flag.Int("rounds", 3, "rounds; the median per B is reported")
	tolerance := flag.Float64("tolerance", 0.02, "the recommended B is the smallest whose median is within this fraction of the best B's")
	replay := flag.String("replay", "", "print the tables of an earlier run from its log (stderr) and its -work files, without timing")
	maxBatches := flag.Int("max-batches", 40, "skip a B that cuts a task's queries into more batches (far too slow to be chosen)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	if err := run(ctx, *work, *tasks, *sizes, *rounds, *maxBatches, *tolerance, *replay); err != nil {
		fmt.Fprintln(os.Stderr, "batchsize:", err)
		os.Exit(1)
	}
	fmt.Printf("Total time: %.0f s\n", time.Since(start).Seconds())
}

type task struct {
	name    string
	queries int
	qfa     string
	lengths []int
	sizes   []int // the B values timed: one per distinct batching, and plain
	same    map[int]int
	walls   map[int][]float64
	cpus    map[int][]float64 // user+sys: robust on a shared machine
	lines   map[int]int
	skipped []int // more than -max-batches batches
}

func run(ctx context.Context, work, taskList, sizeList string, rounds, maxBatches int, tol float64, replay string) error {
	var sizes []int
	for _, s := range strings.Split(sizeList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	var ts []*task
	most := 0
	for _, s := range strings.Split(taskList, ",") {
		name, n, ok := strings.Cut(s, "=")
		q, err := strconv.Atoi(n)
		if !ok || err != nil {
			return fmt.Errorf("bad task %q (want task=queries)", s)
		}
		ts = append(ts, &task{name: name, queries: q, same: map[int]int{}, walls: map[int][]float64{}, cpus: map[int][]float64{}, lines: map[int]int{}})
		most = max(most, q)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	dbFA, allQ := filepath.Join(work, "db.fa"), filepath.Join(work, "queries.fa")
	db := filepath.Join(work, "unsharded")
	if replay == "" {
		logf("writing workload (a): %d queries", most)
		if err := synth.WriteFiles(synth.GenomeSet(most).Write, dbFA, allQ); err != nil {
			return err
		}
		logf("makeblastdb")
		if _, err := refsearch.MakeDB(ctx, dbFA, "nucl", work); err != nil {
			return err
		}
	}
	data, err := os.ReadFile(allQ)
	if err != nil {
		return err
	}
	recs := records(data)
	for _, t := range ts {
		t.qfa = filepath.Join(work, t.name+"-queries.fa")
		var buf bytes.Buffer
		for _, r := range recs[:min(t.queries, len(recs))] {
			buf.Write(r)
			t.lengths = append(t.lengths, letters(r))
		}
		if replay == "" {
			if err := os.WriteFile(t.qfa, buf.Bytes(), 0o644); err != nil {
				return err
			}
		}
		// Sizes giving the same batches give the same search: time the first.
		seen := map[int]int{}
		for _, b := range sizes {
			n := len(batches(t.lengths, b))
			if n > maxBatches {
				t.skipped = append(t.skipped, b)
				continue
			}
			if first, ok := seen[n]; ok {
				t.same[b] = first
				continue
			}
			seen[n] = b
			t.sizes = append(t.sizes, b)
		}
		t.sizes = append(t.sizes, plain)
	}
	if replay != "" {
		return replayLog(ts, replay, work, sizes, tol)
	}
	printMachine(ctx)
	for round := range rounds {
		for _, t := range ts {
			order := slices.Clone(t.sizes)
			k := (round * 3) % len(order)
			order = append(order[k:], order[:k]...)
			for _, b := range order {
				out := filepath.Join(work, fmt.Sprintf("%s-%d.tsv", t.name, b))
				cmd := exec.CommandContext(ctx, "blastn", "-task", t.name, "-db", db, "-query", t.qfa,
					"-outfmt", "6 std", "-num_threads", "1", "-out", out)
				cmd.Env = append(os.Environ(), "BLAST_USAGE_REPORT=false")
				if b != plain {
					cmd.Env = append(cmd.Env, fmt.Sprintf("BATCH_SIZE=%d", b))
				}
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				st := time.Now()
				if err := cmd.Run(); err != nil {
					return fmt.Errorf("%s: %w: %s", cmd, err, stderr.String())
				}
				w := time.Since(st).Seconds()
				t.walls[b] = append(t.walls[b], w)
				cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
				t.cpus[b] = append(t.cpus[b], cpu)
				if o, err := os.ReadFile(out); err == nil {
					t.lines[b] = bytes.Count(o, []byte("\n"))
				}
				logf("round %d %s B=%s: %.2f s wall, %.2f s CPU", round+1, t.name, label(b), w, cpu)
			}
		}
		// The tables after every round: a run stopped early still says
		// what it measured.
		fmt.Printf("## After round %d of %d\n\n", round+1, rounds)
		for _, t := range ts {
			report(t, sizes, tol)
		}
	}
	return nil
}

var logLine = regexp.MustCompile(`round (\d+) (\S+) B=(.+): ([\d.]+) s wall, ([\d.]+) s CPU$`)

// replayLog prints the tables of a run from its log.
func replayLog(ts []*task, path, work string, sizes []int, tol float64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	byName := map[string]*task{}
	for _, t := range ts {
		byName[t.name] = t
	}
	rounds := 0
	for _, l := range strings.Split(string(data), "\n") {
		m := logLine.FindStringSubmatch(l)
		if m == nil || byName[m[2]] == nil {
			continue
		}
		t, b := byName[m[2]], plain
		if m[3] != label(plain) {
			if b, err = strconv.Atoi(m[3]); err != nil {
				return fmt.Errorf("%s: %q", path, l)
			}
		}
		w, _ := strconv.ParseFloat(m[4], 64)
		c, _ := strconv.ParseFloat(m[5], 64)
		t.walls[b], t.cpus[b] = append(t.walls[b], w), append(t.cpus[b], c)
		if o, err := os.ReadFile(filepath.Join(work, fmt.Sprintf("%s-%d.tsv", t.name, b))); err == nil {
			t.lines[b] = bytes.Count(o, []byte("\n"))
		}
		rounds = max(rounds, len(t.cpus[b]))
	}
	fmt.Printf("## %s: %d rounds\n\n", path, rounds)
	for _, t := range ts {
		report(t, sizes, tol)
	}
	return nil
}

// fit is the least-squares line CPU = perBatch x batches + fixed over the
// timed runs of a task (plain blastn left out).
func fit(t *task) (perBatch, fixed float64) {
	var n, sx, sy, sxx, sxy float64
	for _, b := range t.sizes {
		if b == plain {
			continue
		}
		x := float64(len(batches(t.lengths, b)))
		for _, y := range t.cpus[b] {
			n++
			sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		}
	}
	if d := n*sxx - sx*sx; d != 0 {
		perBatch = (n*sxy - sx*sy) / d
	}
	return perBatch, (sy - perBatch*sx) / n
}

// report prints a task's table. The choice is made on CPU time (user+sys
// of the one-thread blastn): wall time on a shared machine measures the
// other work too.
func report(t *task, sizes []int, tol float64) {
	total := 0
	for _, l := range t.lengths {
		total += l
	}
	best := -1
	for _, b := range t.sizes {
		if b != plain && (best < 0 || median(t.cpus[b]) < median(t.cpus[best])) {
			best = b
		}
	}
	bestT, plainT := median(t.cpus[best]), median(t.cpus[plain])
	fmt.Printf("### %s: %d queries (%d letters), %d rounds\n\n", t.name, len(t.lengths), total, len(t.cpus[plain]))
	fmt.Println("| B (letters) | batches | median CPU (s) | rounds CPU (s) | CPU / best B | CPU / plain blastn | min CPU / best B's min | median wall (s) | hit lines |")
	fmt.Println("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
	rec := -1
	for _, b := range append(slices.Clone(sizes), plain) {
		timed := timedB(t, b)
		cs := t.cpus[timed]
		if len(cs) == 0 {
			continue
		}
		m := median(cs)
		var rs []string
		for _, c := range cs {
			rs = append(rs, fmt.Sprintf("%.1f", c))
		}
		nb := "adaptive"
		if b != plain {
			nb = fmt.Sprint(len(batches(t.lengths, b)))
			if rec < 0 && m <= bestT*(1+tol) {
				rec = b
			}
		}
		note := strings.Join(rs, ", ")
		if timed != b {
			note = fmt.Sprintf("same batches as B=%d", timed)
		}
		fmt.Printf("| %s | %s | %.2f | %s | %.3f | %.3f | %.3f | %.2f | %d |\n", label(b), nb, m, note, m/bestT, m/plainT,
			slices.Min(cs)/slices.Min(t.cpus[best]), median(t.walls[timed]), t.lines[timed])
	}
	fmt.Println()
	if len(t.skipped) > 0 {
		fmt.Printf("Not timed (more than the maximum batches): B = %v.\n\n", t.skipped)
	}
	fmt.Printf("Best B: %d (%.2f s CPU, %.3f x plain blastn). Smallest B within %.0f%% of it: **%d** (%.3f x the best B).\n\n",
		best, bestT, bestT/plainT, 100*tol, rec, median(t.cpus[timedB(t, rec)])/bestT)
	// A batch costs one more scan of the database: with s per batch and c
	// per letter, batches of B letters add s/(B c) to the letters' cost,
	// whatever the query count, which places B for the tolerance beyond
	// the letters this run had.
	if s, k := fit(t); s > 0 && k > 0 {
		c := k / float64(total)
		fmt.Printf("Linear fit over the timed runs: CPU = %.3f s per batch + %.2f s (%.2f µs per letter); the scans' share s/(B c) is %.0f%% at B = %d letters.\n\n",
			s, k, 1e6*c, 100*tol, int(s/(tol*c)))
	}
}

func timedB(t *task, b int) int {
	if f, ok := t.same[b]; ok {
		return f
	}
	return b
}

func label(b int) string {
	if b == plain {
		return "plain (no BATCH_SIZE)"
	}
	return fmt.Sprint(b)
}

// batches cuts queries of these lengths by BLAST's rule: whole queries
// are added while the batch holds fewer than b letters; the query that
// reaches b closes the batch. It returns each batch's first query.
func batches(lengths []int, b int) []int {
	var starts []int
	acc := 0
	for i, l := range lengths {
		if acc == 0 {
			starts = append(starts, i)
		}
		if acc += l; acc >= b {
			acc = 0
		}
	}
	return starts
}

// records splits FASTA into records.
func records(data []byte) [][]byte {
	var recs [][]byte
	for len(data) > 0 {
		i := bytes.Index(data[1:], []byte("\n>"))
		if i < 0 {
			return append(recs, data)
		}
		recs = append(recs, data[:i+2])
		data = data[i+2:]
	}
	return recs
}

// letters counts a record's sequence letters.
func letters(rec []byte) int {
	_, seq, _ := bytes.Cut(rec, []byte("\n"))
	return len(seq) - bytes.Count(seq, []byte("\n"))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func printMachine(ctx context.Context) {
	out := func(name string, args ...string) string {
		b, _ := exec.CommandContext(ctx, name, args...).Output()
		return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	}
	fmt.Printf("- %s, nproc %s, load average at start: %s\n\n", out("blastn", "-version"), out("nproc"), out("cat", "/proc/loadavg"))
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
