package main

// Whole runs: CEFT-PVFS's figure 9 timed mpiBLAST's whole run, search
// included, not its reads alone. Here bin/blastfleet-engine works a
// campaign of its own in each setup, in one process (a master and
// -run-workers workers, `--workers`), with a cold shard cache: it stages
// its shard groups from the stores, searches them with BLAST+, and
// commits and assembles its output in a third MinIO (the campaign's home,
// never throttled: the hot spot is a database store). Wall time is the
// engine process's, start to exit.
//
// The workload is the benchmarks' workload (a) (synth.GenomeSet):
// 300-letter queries of held-out strains against 20 bacterial-like
// genomes (44 Mb), blastn with BLAST+'s default task (megablast), the
// database in -run-shards shards. Every run's output must be the same
// bytes, and BLAST+'s own on the unsharded database; every chunk must be
// committed by its first attempt.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/plan/planning"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

type runOptions struct {
	bin     string
	rounds  int
	shards  int
	queries int
	workers int
}

func (r *runOptions) register() {
	flag.StringVar(&r.bin, "bin", "bin", "directory holding blastfleet-engine (make build)")
	flag.IntVar(&r.rounds, "run-rounds", 3, "whole-run rounds; the median per setup is reported")
	flag.IntVar(&r.shards, "run-shards", 2, "shards of the whole runs' database")
	flag.IntVar(&r.queries, "run-queries", 2000, "queries of the whole runs (300 letters each)")
	flag.IntVar(&r.workers, "run-workers", 2, "the engine's workers (--workers)")
}

// runSetups are figure 9's bars for whole runs. The hot spot is the
// primary in both (b) and (d): the store a fresh worker reads first, so
// a replicated run has to find the hot spot out, and the same store as
// in (b), as CEFT-PVFS stressed the same server for its three programs.
var runSetups = []setup{
	{"a", "one store", false, -1},
	{"b", "one store, a hot spot", false, 0},
	{"c", "two replicas", true, -1},
	{"d", "two replicas, one a hot spot", true, 0},
}

// Where the whole runs' data lives: the database under runDB in bucket
// blastdb of store 1 and bucket replica of store 2, the queries and the
// campaigns in bucket campaigns of the home MinIO.
const (
	runOutfmt = "6 std"
	runMaxTSS = 500
	runDB     = "genomes"
	primaryDB = "s3://blastdb/" + runDB
	replicaDB = "s3://replica/" + runDB
	homeBkt   = "campaigns"
	queryKey  = "queries.fa"
)

// wholeRun is the whole-run part's state.
type wholeRun struct {
	o       options
	work    string
	rg      *rig
	home    *server
	engine  string
	plan    ledger.Plan // every run's plan but its name
	want    []byte      // BLAST+'s output on the unsharded database
	dbBytes int64
	letters int64 // the database's
}

// runResult is one engine run.
type runResult struct {
	wall     time.Duration
	staging  float64 // the slowest worker's staging (its distribution phase), s
	search   float64 // the slowest worker's BLAST time (its compute phase), s
	attempts int
	failed   int // failed attempts
	chunks   int
	out      []byte
	reads    string // what each store served, with skips
	skips    int
	why      []string // the skips' reasons
}

func runWhole(ctx context.Context, o options, work string, rg *rig) error {
	w := &wholeRun{o: o, work: filepath.Join(work, "run"), rg: rg}
	var err error
	if w.engine, err = filepath.Abs(filepath.Join(o.run.bin, "blastfleet-engine")); err != nil {
		return err
	}
	if _, err := os.Stat(w.engine); err != nil {
		return fmt.Errorf("the engine is missing (make build): %w", err)
	}
	if err := os.MkdirAll(filepath.Join(w.work, "summaries"), 0o755); err != nil {
		return err
	}
	if w.home, err = startMinIO(o.minio, filepath.Join(work, "minio-home"), homeBkt); err != nil {
		return err
	}
	defer w.home.stop()
	if err := w.prepare(ctx); err != nil {
		return err
	}
	ro := o.run
	fmt.Printf("## Replicated databases and hot spots: whole runs with cold caches (staging, BLAST+, output)\n\n")
	fmt.Printf("%d queries of 300 letters, blastn (megablast) -outfmt \"%s\" -max_target_seqs %d, against 20 genomes (%d letters) "+
		"in %d shards, %.1f MiB; blastfleet-engine --campaign --workers %d, a fresh --cache-dir per run; %d rounds, medians.\n\n",
		w.plan.Queries.Count, runOutfmt, runMaxTSS, w.letters, ro.shards, float64(w.dbBytes)/(1<<20), ro.workers, ro.rounds)
	res := map[string][]*runResult{}
	for round := 0; round < ro.rounds; round++ {
		for i := range runSetups {
			su := runSetups[(i+round)%len(runSetups)]
			if err := w.rg.hurt(su.hot); err != nil {
				return err
			}
			r, err := w.once(ctx, su, round)
			if err != nil {
				return fmt.Errorf("whole run %s (%s), round %d: %w", su.key, su.what, round+1, err)
			}
			fmt.Fprintf(os.Stderr, "whole run, round %d %s (%s): %s (staging %.2f s, search %.2f s), %d attempts for %d chunks, %d failed; %s\n",
				round+1, su.key, su.what, r.wall.Round(time.Millisecond), r.staging, r.search, r.attempts, r.chunks, r.failed, r.reads)
			res[su.key] = append(res[su.key], r)
		}
	}
	return w.report(res)
}

// prepare writes the workload, shards it into store 1, copies the build
// to store 2, puts the queries in the home store, computes BLAST+'s
// reference and fills the plan.
func (w *wholeRun) prepare(ctx context.Context) error {
	ro := w.o.run
	dbFA, qFA := filepath.Join(w.work, "db.fa"), filepath.Join(w.work, queryKey)
	if err := synth.WriteFiles(synth.GenomeSet(ro.queries).Write, dbFA, qFA); err != nil {
		return fmt.Errorf("writing the workload: %w", err)
	}
	primary, err := w.rg.stores[0].bucket(w.rg.stores[0].host, "blastdb", runDB)
	if err != nil {
		return err
	}
	m, err := shard.Build(ctx, shard.Options{Input: dbFA, Type: manifest.Nucleotide, Shards: ro.shards, Output: primary,
		Name: runDB, WorkDir: w.work})
	if err != nil {
		return fmt.Errorf("sharding: %w", err)
	}
	replica, err := w.rg.stores[1].bucket(w.rg.stores[1].host, "replica", runDB)
	if err != nil {
		return err
	}
	if _, err := dbcopy.Copy(ctx, primary, replica, m.Build, dbcopy.Options{}); err != nil {
		return fmt.Errorf("replicating: %w", err)
	}
	_, sum, err := manifest.LoadCurrent(ctx, primary)
	if err != nil {
		return err
	}
	for _, sh := range m.Shards {
		for _, f := range sh.Files {
			w.dbBytes += f.Size
		}
	}
	w.letters = m.Letters
	q, err := os.ReadFile(qFA)
	if err != nil {
		return err
	}
	home, err := w.home.bucket(w.home.host, homeBkt, "")
	if err != nil {
		return err
	}
	if err := home.Put(ctx, queryKey, bytes.NewReader(q), int64(len(q))); err != nil {
		return fmt.Errorf("putting the queries: %w", err)
	}
	recs, err := fasta.ReadAll(bytes.NewReader(q), qFA, fasta.Nucleotide)
	if err != nil {
		return err
	}
	var lengths []int
	var letters int64
	for _, r := range recs {
		lengths = append(lengths, len(r.Seq))
		letters += int64(len(r.Seq))
	}
	spec, err := search.Request{Program: "blastn", Outfmt: runOutfmt, MaxTargetSeqs: runMaxTSS, TopHits: "auto"}.Parse()
	if err != nil {
		return err
	}
	chunks, starts := planning.Chunks(lengths, spec, 0, len(lengths))
	h := sha256.Sum256(q)
	w.plan = ledger.Plan{SchemaVersion: ledger.SchemaVersion,
		Queries:  ledger.Queries{Location: "s3://" + homeBkt + "/" + queryKey, SHA256: hex.EncodeToString(h[:]), Size: int64(len(q)), Count: len(recs), Letters: letters},
		Database: ledger.Database{Location: primaryDB, Name: runDB, Type: "nucl", ManifestSHA256: sum, Manifest: m.Key()},
		Search:   spec, Chunks: chunks, BatchStarts: starts}
	unsharded, err := refsearch.MakeDB(ctx, dbFA, "nucl", w.work)
	if err != nil {
		return err
	}
	// The contract's reference: BLAST+ on the whole file in its own
	// batches (BATCH_SIZE fixed as the engine fixes it).
	if w.want, err = refsearch.SearchBatches(ctx, "blastn", unsharded, qFA, runOutfmt, "-max_target_seqs", fmt.Sprint(runMaxTSS)); err != nil {
		return fmt.Errorf("BLAST+'s reference: %w", err)
	}
	return nil
}

// once runs one campaign of the workload in setup su with a cold cache
// and reads back its wall time, its summary, its ledger and its output.
func (w *wholeRun) once(ctx context.Context, su setup, round int) (*runResult, error) {
	name := fmt.Sprintf("hotspot-%d-%s", round+1, su.key)
	campaign, err := w.home.bucket(w.home.host, homeBkt, name)
	if err != nil {
		return nil, err
	}
	p := w.plan
	p.Name = name
	if err := ledger.WritePlan(ctx, campaign, &p); err != nil {
		return nil, fmt.Errorf("writing the plan: %w", err)
	}
	cache := filepath.Join(w.work, "cache")
	if err := os.RemoveAll(cache); err != nil {
		return nil, err
	}
	summary := filepath.Join(w.work, "summaries", name+".json")
	args := []string{"--campaign", "s3://" + homeBkt + "/" + name, "--partition-id", name, "--workers", fmt.Sprint(w.o.run.workers),
		"--cache-dir", cache, "--summary-json", summary}
	if su.replicas {
		args = append(args, "--database-replica", replicaDB)
	}
	cmd := exec.CommandContext(ctx, w.engine, args...)
	cmd.Env = w.env(su.replicas)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	r := &runResult{wall: time.Since(start)}
	// The log stays for a look at what the workers did.
	if werr := os.WriteFile(filepath.Join(w.work, "summaries", name+".log"), stderr.Bytes(), 0o644); werr != nil {
		return nil, werr
	}
	if err != nil {
		return nil, fmt.Errorf("blastfleet-engine: %w: %s", err, tail(stderr.String(), 2000))
	}
	if err := r.readSummary(summary); err != nil {
		return nil, err
	}
	st, err := ledger.ReadStatus(ctx, campaign)
	if err != nil {
		return nil, fmt.Errorf("campaign status: %w", err)
	}
	if !st.Complete {
		return nil, fmt.Errorf("campaign %s not complete: %+v", name, st)
	}
	r.attempts, r.failed, r.chunks = st.Attempts, st.FailedAttempts.Total(), st.Chunks
	if r.out, _, err = campaign.GetBytes(ctx, ledger.ResultKey); err != nil {
		return nil, fmt.Errorf("the campaign's result: %w", err)
	}
	return r, nil
}

// env is the engine's environment: the campaign and the queries in the
// home MinIO (AWS_*), the database through store 1's proxy and, with
// replicas, its replica through store 2's (docs/engine.md "Storage
// variables"). The caller's own store variables are left out.
func (w *wholeRun) env(replicas bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "BLASTFLEET_") {
			env = append(env, kv)
		}
	}
	env = append(env, storeVars("", "http://"+w.home.host, w.home)...)
	env = append(env, storeVars("BLASTFLEET_DATABASE_", w.rg.proxies[0].URL, w.rg.stores[0])...)
	if replicas {
		env = append(env, storeVars("BLASTFLEET_REPLICA1_", w.rg.proxies[1].URL, w.rg.stores[1])...)
	}
	return env
}

// storeVars are one store's variables, with prefix, reaching s at url.
func storeVars(prefix, url string, s *server) []string {
	return []string{prefix + "AWS_ENDPOINT_URL=" + url, prefix + "AWS_ACCESS_KEY_ID=" + s.user,
		prefix + "AWS_SECRET_ACCESS_KEY=" + s.pass, prefix + "AWS_REGION=us-east-1"}
}

// readSummary takes the workers' phases and store reads from the
// engine's --summary-json.
func (r *runResult) readSummary(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the run's summary: %w", err)
	}
	var s runrecord.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("the run's summary %s: %w", path, err)
	}
	type store struct {
		bytes, pieces, errors, hedges int64
		skips                         int
	}
	var names []string
	stores := map[string]*store{}
	for _, rk := range s.Ranks {
		if rk.Role != "worker" {
			continue
		}
		r.staging = max(r.staging, rk.Phases["distribution"])
		r.search = max(r.search, rk.Phases["compute"])
		for _, sr := range rk.Stores {
			st := stores[sr.Store]
			if st == nil {
				st = &store{}
				stores[sr.Store] = st
				names = append(names, sr.Store)
			}
			st.bytes += sr.Bytes
			st.pieces += sr.Pieces
			st.errors += sr.Errors
			st.hedges += sr.HedgesWon
			st.skips += sr.Skips
			r.skips += sr.Skips
			r.why = append(r.why, sr.SkipReasons...)
		}
	}
	if len(names) == 0 {
		r.reads = "the store alone"
		return nil
	}
	var notes []string
	for _, n := range names {
		st := stores[n]
		notes = append(notes, fmt.Sprintf("%s %.1f MiB in %d pieces, %d skips, %d hedges won, %d errors",
			n, float64(st.bytes)/(1<<20), st.pieces, st.skips, st.hedges, st.errors))
	}
	r.reads = strings.Join(notes, "; ")
	return nil
}

// report prints the whole runs' table, checks their outputs and
// attempts, and ends with the line.
func (w *wholeRun) report(res map[string][]*runResult) error {
	med, stagingMed := map[string]float64{}, map[string]float64{}
	fmt.Println("| setup | whole run (median) | rounds | staging, slowest worker (median) | BLAST+, slowest worker (median) | attempts / chunks, failed | skips | last round's reads |")
	fmt.Println("| --- | ---: | --- | ---: | ---: | --- | ---: | --- |")
	var problems []error
	var reasons []string
	runs, failed := 0, 0
	for _, su := range runSetups {
		rs := res[su.key]
		var walls []time.Duration
		var staging, blast []float64
		attempts, chunks, fails, skips := 0, 0, 0, 0
		for _, r := range rs {
			walls = append(walls, r.wall)
			staging = append(staging, r.staging)
			blast = append(blast, r.search)
			attempts += r.attempts
			chunks += r.chunks
			fails += r.failed
			skips += r.skips
			reasons = append(reasons, r.why...)
			runs++
			if !bytes.Equal(r.out, w.want) {
				problems = append(problems, fmt.Errorf("%s: output differs from BLAST+'s (%d bytes against %d): %s",
					su.key, len(r.out), len(w.want), refsearch.Diff(r.out, w.want)))
			}
		}
		failed += fails
		med[su.key], stagingMed[su.key] = median(walls).Seconds(), medianF(staging)
		fmt.Printf("| (%s) %s | %.2f s | %v | %.2f s | %.2f s | %d / %d, %d failed | %d | %s |\n", su.key, su.what, med[su.key], seconds(walls),
			stagingMed[su.key], medianF(blast), attempts, chunks, fails, skips, rs[len(rs)-1].reads)
	}
	fmt.Println()
	identical := "byte-identical, and BLAST+'s own on the unsharded database"
	if len(problems) > 0 {
		identical = "NOT identical"
	}
	fmt.Printf("output: the %d runs' results are %s (%d lines)\n", runs, identical, bytes.Count(w.want, []byte("\n")))
	fmt.Printf("failed attempts: %d in %d runs\n", failed, runs)
	// The machine is shared: its load says how far BLAST+'s times are its own.
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at the end: %s\n", strings.Join(strings.Fields(string(b))[:3], " "))
	}
	if len(reasons) > 0 {
		fmt.Printf("skips recorded (first): %s\n", reasons[0])
	}
	// What decides the slowdowns: the share of a healthy run that is
	// staging (CEFT-PVFS measured I/O at 11% of mpiBLAST's run on 2 workers).
	fmt.Printf("staging's share of a run from one healthy store (a): %.2f s of %.2f s, %.0f%%\n",
		stagingMed["a"], med["a"], 100*stagingMed["a"]/med["a"])
	fmt.Printf("two healthy replicas against one store (c/a): %.2fx\n", med["c"]/med["a"])
	fmt.Printf("hot-spot slowdown: one store %.2f x, replicated %.2f x\n", med["b"]/med["a"], med["d"]/med["c"])
	if failed > 0 {
		problems = append(problems, fmt.Errorf("%d failed attempts", failed))
	}
	return errors.Join(problems...)
}

// medianF is the median of xs.
func medianF(xs []float64) float64 {
	ds := make([]time.Duration, len(xs))
	for i, x := range xs {
		ds[i] = time.Duration(x * float64(time.Second))
	}
	return median(ds).Seconds()
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
