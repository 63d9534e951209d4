package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// engineBatches are the engine's batching flags: none, BLAST+'s own
// batches are its default (issue 28).
var engineBatches []string

// workload is one synthetic workload of `make bench` (test/support/synth):
// (a) 300-letter queries of held-out strains against 20 bacterial-like
// genomes (44 Mb), once per blastn task; (b) protein queries against
// protein families; (c) five long queries (100-500 kb) against 3 genomes.
type workload struct {
	key     string // what -workloads selects: a, b or c
	name    string
	program string
	task    string // blastn's -task
	queries int    // sized so one thread takes 5-60 s here
	set     func(queries int) func(db, q io.Writer) error
	dbtype  string
}

func genomes(n int) func(db, q io.Writer) error   { return synth.GenomeSet(n).Write }
func proteins(n int) func(db, q io.Writer) error  { return synth.ProteinSet(n).Write }
func longQuery(n int) func(db, q io.Writer) error { return synth.LongQuerySet(n).Write }

var workloads = []workload{
	{key: "a", name: "a-megablast", program: "blastn", task: "megablast", queries: 16000, set: genomes, dbtype: "nucl"},
	{key: "a", name: "a-dc-megablast", program: "blastn", task: "dc-megablast", queries: 2000, set: genomes, dbtype: "nucl"},
	{key: "a", name: "a-blastn", program: "blastn", task: "blastn", queries: 1200, set: genomes, dbtype: "nucl"},
	{key: "b", name: "b-proteins", program: "blastp", queries: 200, set: proteins, dbtype: "prot"},
	{key: "c", name: "c-long", program: "blastn", task: "blastn", queries: 5, set: longQuery, dbtype: "nucl"},
}

// The ways of a synthetic workload, side by side.
const (
	wT1     = "1. BLAST+ 1 thread (the reference)"
	wT2     = "2. BLAST+ -num_threads 2"
	wHalves = "3. two halves of the queries, two BLAST+ at once"
	wEngine = "4. engine in process (--workers 2)"
	wMPI    = "5. engine under mpirun (1 master + 2 workers)"
)

func (w workload) title() string {
	t := w.program
	if w.task != "" {
		t += " -task " + w.task
	}
	if b := w.batch(); b > 0 {
		t = fmt.Sprintf("BATCH_SIZE=%d %s", b, t)
	}
	return t
}

// batch is the BATCH_SIZE of the workload's reference (0: BLAST's own).
func (w workload) batch() int {
	if w.program != "blastn" {
		return 0
	}
	return blast.BatchLetters(blast.Blastn, []blast.Option{{Name: "task", Value: w.task}}, blast.BatchingBLAST)
}

// runWorkloads runs the selected synthetic workloads one after another,
// each with its ways side by side in rotating rounds.
func (b *bench) runWorkloads(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if !slices.ContainsFunc(workloads, func(w workload) bool { return w.key == k || w.name == k }) {
			return fmt.Errorf("unknown workload %q (a, b, c or a workload's name: a-megablast, a-dc-megablast, a-blastn, b-proteins, c-long)", k)
		}
	}
	if b.o.kubectl {
		if _, err := exec.LookPath("kubectl"); err != nil {
			b.logf("kubectl not found: skipping way 6 (the campaign through kubectl apply)")
		} else if b.stack, err = upStack(ctx, b.cliBin, b.logf); err != nil {
			return err
		}
	}
	if b.stack != nil {
		defer func() {
			// Everything the bench put on the stack goes, even after an
			// error or an interrupt; the stack stays up.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := b.stack.cleanup(ctx); err != nil {
				b.logf("way 6: cleaning the stack up: %v", err)
			}
			fmt.Printf("The local stack of way 6 stays up (%s; blastfleet dev status). Stop it: %s dev down\n", b.stack.dir, b.cliBin)
		}()
	}
	printed := false
	for _, w := range workloads {
		if !slices.Contains(keys, w.key) && !slices.Contains(keys, w.name) {
			continue
		}
		sub := &bench{o: b.o, engineBin: b.engineBin, cliBin: b.cliBin, stack: b.stack}
		sub.o.work = filepath.Join(b.o.work, w.name)
		if err := sub.prepareWorkload(ctx, w); err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		if !printed {
			b.printMachineOnly(ctx)
			printed = true
		}
		if err := sub.timeWorkload(ctx, w); err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
	}
	return nil
}

// prepareWorkload writes the workload's FASTA, its unsharded database and
// its shards.
func (b *bench) prepareWorkload(ctx context.Context, w workload) error {
	dir := b.o.work
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		return err
	}
	n := w.queries
	if b.o.queryLimit > 0 {
		n = min(n, b.o.queryLimit)
	}
	// The database does not depend on the query count: the workloads of
	// one set share it, in the set's folder.
	setDir := filepath.Join(filepath.Dir(dir), "db-"+w.key)
	if err := os.MkdirAll(setDir, 0o755); err != nil {
		return err
	}
	b.dbFA, b.qFA = filepath.Join(setDir, "db.fa"), filepath.Join(dir, "queries.fa")
	b.logf("%s: writing %d queries and the database (test/support/synth)", w.name, n)
	newDB := filepath.Join(setDir, "db.fa.new")
	if err := synth.WriteFiles(w.set(n), newDB, b.qFA); err != nil {
		return err
	}
	b.qEngine = b.qFA
	b.unsharded = filepath.Join(setDir, "unsharded")
	b.shardDB = filepath.Join(setDir, fmt.Sprintf("shards-%d", b.o.shards))
	if old, err := os.ReadFile(b.dbFA); err == nil && bytes.Equal(old, readBytes(newDB)) && exists(filepath.Join(b.shardDB, "manifest.json")) {
		b.cache = filepath.Join(setDir, "cache")
		return os.Remove(newDB)
	}
	if err := os.Rename(newDB, b.dbFA); err != nil {
		return err
	}
	b.logf("%s: makeblastdb and %d shards", w.name, b.o.shards)
	if _, err := refsearch.MakeDB(ctx, b.dbFA, w.dbtype, setDir); err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, b.cliBin, "db", "shard", "--input", b.dbFA, "--type", w.dbtype,
		"--shards", fmt.Sprint(b.o.shards), "--output", b.shardDB, "--force").CombinedOutput(); err != nil {
		return fmt.Errorf("blastfleet db shard: %w: %s", err, out)
	}
	b.cache = filepath.Join(setDir, "cache")
	return os.RemoveAll(b.cache)
}

func readBytes(p string) []byte {
	b, _ := os.ReadFile(p)
	return b
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (b *bench) timeWorkload(ctx context.Context, w workload) error {
	p := plain{program: w.program, db: b.unsharded, args: []string{"-outfmt", outfmt}}
	var extra []string
	if w.task != "" {
		p.args = append(p.args, "-task", w.task)
		extra = append(extra, "--blast-option=-task="+w.task)
	}
	if bs := w.batch(); bs > 0 {
		p.env = append(p.env, fmt.Sprintf("BATCH_SIZE=%d", bs))
	}
	extra = append(extra, engineBatches...)
	engine := func(mpi bool) func(ctx context.Context, tag string) (*result, error) {
		return func(ctx context.Context, tag string) (*result, error) {
			return b.engineOn(ctx, tag, mpi, w.program, b.shardDB, b.qEngine, maxTarget, extra...)
		}
	}
	b.logf("%s: engine warm-up run (cold shard cache)", w.name)
	if _, err := engine(false)(ctx, "warmup"); err != nil {
		return err
	}
	ways := []way{{wT1, b.blast(p, 1)}, {wT2, b.blast(p, 2)}, {wHalves, b.split(p)}, {wEngine, engine(false)}}
	if b.o.mpi {
		ways = append(ways, way{wMPI, engine(true)})
	}
	if b.stack != nil {
		cw, err := b.campaignWay(ctx, w)
		if err != nil {
			return err
		}
		ways = append(ways, cw)
	}
	for round := range b.o.rounds {
		k := round % len(ways)
		for _, wy := range append(slices.Clone(ways[k:]), ways[:k]...) {
			b.logf("%s round %d: %s", w.name, round+1, wy.name)
			r, err := wy.run(ctx, fmt.Sprintf("%s-r%d", wy.name[:1], round))
			if err != nil {
				return err
			}
			r.Way, r.Round = wy.name, round
			b.results = append(b.results, r)
			b.logf("  %.1f s wall, %.1f s CPU", r.Wall, r.CPU)
		}
	}
	b.printWorkload(w, ways)
	return nil
}

func (b *bench) printWorkload(w workload, ways []way) {
	t1 := median(walls(b.byWay(wT1)))
	limit := t1 / 2
	ref := medianRun(b.byWay(wT1)).out
	nq := strings.Count(readFile(b.qFA), ">")
	fmt.Printf("## Workload %s: %s, %d queries (%s letters), %d rounds\n\n", w.name, w.title(), nq, letterCount(b.qFA), b.o.rounds)
	fmt.Printf("Database: %s. The limit = median of way 1 / 2 = %.2f s / 2 = **%.2f s**; the engine runs with %s.\n\n",
		letterCount(b.dbFA)+" letters in "+fmt.Sprint(strings.Count(readFile(b.dbFA), ">"))+" sequences", t1, limit,
		strings.Join(append([]string{fmt.Sprintf("%d shards", b.o.shards)}, engineBatches...), " "))
	fmt.Println("| way | median wall (s) | rounds (s) | / limit | CPU s (median) | CPU / way 1's | output identical to way 1 |")
	fmt.Println("| --- | ---: | --- | ---: | ---: | ---: | --- |")
	cpu1 := median(cpus(b.byWay(wT1)))
	for _, wy := range ways {
		rs := b.byWay(wy.name)
		var rounds []string
		for _, r := range rs {
			rounds = append(rounds, fmt.Sprintf("%.1f", r.Wall))
		}
		same := "yes"
		for _, r := range rs {
			if !bytes.Equal(r.out, ref) {
				same = fmt.Sprintf("no (%d of %d queries differ)", diffQueries(r.out, ref), nq)
				break
			}
		}
		m := median(walls(rs))
		c, cr := "-", "-"
		if cs := cpus(rs); !slices.ContainsFunc(cs, func(x float64) bool { return x < 0 }) {
			c, cr = fmt.Sprintf("%.1f", median(cs)), fmt.Sprintf("%.3f", median(cs)/cpu1)
		}
		fmt.Printf("| %s | %.2f | %s | %.3f | %s | %s | %s |\n", wy.name, m, strings.Join(rounds, ", "), m/limit, c, cr, same)
	}
	fmt.Println()
	if b.stack != nil {
		fmt.Printf("%s\n\n", b.stack.campaignNote(b.byWay(wCampaign), b.o.shards))
	}
	for _, n := range []string{wEngine, wMPI} {
		if rs := b.byWay(n); len(rs) > 0 {
			s := medianRun(rs).Summary
			fmt.Printf("%s, median run: %d blocks, %d tasks, BLAST s summed over workers %.1f = %.3f x way 1, efficiency %.3f, worker idle %s s.\n\n",
				n, s.Blocks, s.Tasks, s.BlastSeconds(), s.BlastSeconds()/t1, s.Efficiency, idle(s))
		}
	}
}

func cpus(rs []*result) []float64 {
	var c []float64
	for _, r := range rs {
		c = append(c, r.CPU)
	}
	return c
}

// letterCount is a FASTA file's sequence letters, as text.
func letterCount(path string) string {
	n := 0
	for _, l := range strings.Split(readFile(path), "\n") {
		if !strings.HasPrefix(l, ">") {
			n += len(strings.TrimSpace(l))
		}
	}
	return fmt.Sprint(n)
}

// printMachineOnly is printMachine's machine part.
func (b *bench) printMachineOnly(ctx context.Context) {
	fmt.Println("## Machine")
	fmt.Println()
	fmt.Printf("- nproc: %s; %s\n", strings.TrimSpace(cmdOut(ctx, "nproc")), strings.TrimSpace(strings.SplitN(cmdOut(ctx, "blastn", "-version"), "\n", 2)[0]))
	fmt.Printf("- load average at start: %s; %s\n\n", strings.TrimSpace(readFile("/proc/loadavg")), time.Now().UTC().Format(time.RFC3339))
}
