// Package campaign_e2e runs campaigns (docs/campaigns.md) with real engine
// partitions under mpirun against a real MinIO and BLAST+, and injects
// faults: killed ranks, masters and partitions, a restarted object store,
// a paused partition, a poison query and bad input. Every run must end
// with each query's result present exactly once and the output identical
// to the unsharded (fault-free) search.
package campaign_e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/plan/planning"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m, func() {
		for _, dir := range fixDirs { // the fixtures shared by the tests
			os.RemoveAll(dir)
		}
	})
}

// soak: longer repetitions (more seeds) only with BLASTFLEET_SOAK=1.
func soak() bool { return os.Getenv("BLASTFLEET_SOAK") == "1" }

// seeds are the seeded runs of each kill test.
func seeds() []uint64 {
	if soak() {
		return []uint64{1, 2, 3, 4, 5, 6}
	}
	return []uint64{1, 2}
}

// mpiEnv is what OpenMPI needs here (testenv.MPIEnv).
var mpiEnv = testenv.MPIEnv

func requireTools(t *testing.T, names ...string) { testenv.RequireTools(t, names...) }

type binaries struct{ engine, cli string }

// bins returns the engine and CLI binaries (testenv.BuiltBinaries).
func bins(t *testing.T) binaries {
	b := testenv.BuiltBinaries(t)
	return binaries{engine: b.Engine, cli: b.CLI}
}

// fixture is the synthetic blastn families, their 3 shards and the
// unsharded reference search, built once for the package.
type fixture struct {
	dir, fasta, queries, shards string
	queryBytes                  []byte
	nQueries                    int
	letters                     int64
	// want is the reference of the fixture's batching on the unsharded
	// database, outfmt 6 std, -max_target_seqs 500: one run in BLAST+'s
	// batches, or each query alone.
	want                     []byte
	alone                    []byte         // each query searched alone
	batching                 blast.Batching // of the plans: alone for the ledger's mechanics (many small chunks)
	lengths                  []int          // of the queries
	manifestSHA, manifestKey string         // the build's manifest, as a plan pins it
	slowPath                 string         // PATH with a blastn that sleeps first
	options                  []string       // BLAST options of the plan, e.g. -task=blastn
}

// blastDelay is how long the partitions' blastn waits before running, so
// that a campaign lasts several seconds (and can be hurt mid-way) without
// using more CPU on a small machine.
const blastDelay = "0.05"

const outfmt = "6 std"

func nuclFamilies() synth.Options {
	return synth.Options{Seed: 7, Families: 24, Members: 10, MinLen: 300, MaxLen: 900, Mutation: 0.04,
		Queries: 30, QueryFrac: 0.6, Unrelated: 40, Duplicates: 2}
}

var (
	fixOnce, batchOnce sync.Once
	fix, batchFix      *fixture
	fixErr, batchErr   error
	fixDirs            []string
)

func getFixture(t *testing.T) *fixture {
	t.Helper()
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	// Each query alone: the plans' chunks may then be as small as the
	// tests of leases, retries and takeovers want (a chunk is whole
	// BLAST+ batches, and these queries are one batch).
	fixOnce.Do(func() { fix, fixErr = buildFixture(nuclFamilies(), blast.BatchingAlone) })
	if fixErr != nil {
		t.Fatalf("fixture: %v", fixErr)
	}
	return fix
}

func getBatchingFixture(t *testing.T) *fixture {
	t.Helper()
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	batchOnce.Do(func() {
		batchFix, batchErr = buildFixture(synth.BatchingSensitive(), blast.BatchingBLAST, "-task=blastn")
	})
	if batchErr != nil {
		t.Fatalf("fixture: %v", batchErr)
	}
	return batchFix
}

func buildFixture(o synth.Options, batching blast.Batching, options ...string) (*fixture, error) {
	return buildShapedFixture(o, batching, fixtureShape{shards: 3}, options...)
}

// fixtureShape is how a fixture's database is built: its shard count, and
// padding records whose long titles make big header files (.nhr) at no
// cost to BLAST (their sequences are short and random), so fetches of
// the shards last while the search stays small.
type fixtureShape struct {
	shards         int
	padRecords     int // records of padTitleBytes each
	padTitleBytes  int
	padSequenceLen int
}

// writePadding appends sh's padding records to db, seeded.
func writePadding(db *bytes.Buffer, sh fixtureShape) {
	r := rand.New(rand.NewPCG(29, 1))
	const title, bases = "abcdefghijklmnopqrstuvwxyz ", "ACGT"
	for i := 0; i < sh.padRecords; i++ {
		fmt.Fprintf(db, ">pad%05d ", i)
		for j := 0; j < sh.padTitleBytes; j++ {
			db.WriteByte(title[r.IntN(len(title))])
		}
		db.WriteByte('\n')
		for j := 0; j < sh.padSequenceLen; j++ {
			db.WriteByte(bases[r.IntN(len(bases))])
		}
		db.WriteByte('\n')
	}
}

func buildShapedFixture(o synth.Options, batching blast.Batching, sh fixtureShape, options ...string) (*fixture, error) {
	dir, err := os.MkdirTemp("", "blastfleet-campaign-fixture-")
	if err != nil {
		return nil, err
	}
	fixDirs = append(fixDirs, dir)
	f := &fixture{dir: dir, fasta: filepath.Join(dir, "db.fa"), queries: filepath.Join(dir, "q.fa"), shards: filepath.Join(dir, "shards"),
		options: options, batching: batching}
	var db, q bytes.Buffer
	if err := synth.Write(o, &db, &q); err != nil {
		return nil, err
	}
	f.queryBytes = q.Bytes()
	writePadding(&db, sh)
	if err := os.WriteFile(f.fasta, db.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(f.queries, f.queryBytes, 0o644); err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(f.queryBytes), "\n") {
		if strings.HasPrefix(line, ">") {
			f.nQueries++
		} else {
			f.letters += int64(len(strings.TrimSpace(line)))
		}
	}
	slow, err := testenv.SlowBLASTPath(dir, blastDelay)
	if err != nil {
		return nil, err
	}
	f.slowPath = "PATH=" + slow
	ctx := context.Background()
	unsharded, err := refsearch.MakeDB(ctx, f.fasta, "nucl", dir)
	if err != nil {
		return nil, err
	}
	args := []string{"-max_target_seqs", "500"}
	for _, o := range options {
		name, value, _ := strings.Cut(o, "=")
		args = append(args, name, value)
	}
	if f.alone, err = refsearch.SearchAlone(ctx, "blastn", unsharded, f.queries, outfmt, args...); err != nil {
		return nil, err
	}
	f.want = f.alone
	if batching != blast.BatchingAlone {
		if f.want, err = refsearch.SearchBatches(ctx, "blastn", unsharded, f.queries, outfmt, args...); err != nil {
			return nil, err
		}
	}
	recs, err := fasta.ReadAll(bytes.NewReader(f.queryBytes), f.queries, fasta.Nucleotide)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		f.lengths = append(f.lengths, len(r.Seq))
	}
	if n := bytes.Count(f.want, []byte("\n")); n < 100 {
		return nil, fmt.Errorf("the reference has only %d lines", n)
	}
	st, err := objstore.Open(ctx, f.shards)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(dir, "work-")
	if err != nil {
		return nil, err
	}
	if _, err := shard.Build(ctx, shard.Options{Input: f.fasta, Type: manifest.Nucleotide, Shards: sh.shards,
		Output: st, Name: "families", WorkDir: work}); err != nil {
		return nil, err
	}
	m, sum, err := manifest.LoadCurrent(ctx, st)
	if err != nil {
		return nil, err
	}
	f.manifestSHA, f.manifestKey = sum, m.Key()
	return f, nil
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ---------------------------------------------------------------- campaigns

// env is one test's object store: a MinIO with buckets "data" (database
// and queries) and "campaigns".
type env struct {
	minio *testenv.MinIO
	f     *fixture
	db    string // database location
	qloc  string // queries location
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, getFixture(t))
}

// newEnvWith is newEnv for another fixture.
func newEnvWith(t *testing.T, f *fixture) *env {
	t.Helper()
	// Lets the test read MinIO's request counters without a token.
	t.Setenv("MINIO_PROMETHEUS_AUTH_TYPE", "public")
	m := testenv.StartMinIO(t)
	m.Setenv(t)
	m.MakeBucket(t, "data")
	m.MakeBucket(t, "campaigns")
	e := &env{minio: m, f: f, db: "s3://data/db", qloc: "s3://data/q.fa"}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dbst := mustOpen(t, e.db)
	err := filepath.WalkDir(f.shards, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(f.shards, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return dbst.Put(ctx, filepath.ToSlash(rel), bytes.NewReader(b), int64(len(b)))
	})
	if err != nil {
		t.Fatalf("uploading the database: %v", err)
	}
	putObject(t, e.qloc, f.queryBytes)
	return e
}

func mustOpen(t *testing.T, loc string) objstore.Store {
	t.Helper()
	st, err := objstore.Open(context.Background(), loc)
	if err != nil {
		t.Fatalf("opening %s: %v", loc, err)
	}
	return st
}

func putObject(t *testing.T, loc string, data []byte) {
	t.Helper()
	st, key, err := objstore.OpenObject(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("writing %s: %v", loc, err)
	}
}

// testPolicy makes takeovers happen within seconds.
var testPolicy = ledger.Policy{MaxAttempts: 3, LeaseSeconds: 6, RenewSeconds: 2, SkewSeconds: 1}

// plan writes a campaign plan at loc for the env's queries and database,
// in chunks of q queries.
func (e *env) plan(t *testing.T, loc string, q int) objstore.Store {
	t.Helper()
	return e.planWith(t, loc, q, e.db, e.qloc)
}

// planPolicy is plan with a retry policy of the test's own.
func (e *env) planPolicy(t *testing.T, loc string, q int, pol ledger.Policy) objstore.Store {
	t.Helper()
	return e.planFull(t, loc, q, e.db, e.qloc, pol)
}

// planWith plans with the given database and queries locations (the
// fixture's local files for a directory campaign).
func (e *env) planWith(t *testing.T, loc string, q int, db, qloc string) objstore.Store {
	t.Helper()
	return e.planFull(t, loc, q, db, qloc, testPolicy)
}

func (e *env) planFull(t *testing.T, loc string, q int, db, qloc string, pol ledger.Policy) objstore.Store {
	t.Helper()
	f := e.f
	spec := search.MustParse(search.Request{Program: "blastn", Outfmt: outfmt, MaxTargetSeqs: 500, TopHits: "auto", Options: f.options,
		Batching: string(f.batching)})
	chunks, starts := planning.Chunks(f.lengths, spec, 0, q)
	return writePlan(t, loc, &ledger.Plan{SchemaVersion: ledger.SchemaVersion, Name: filepath.Base(loc),
		Queries: ledger.Queries{Location: qloc, SHA256: sha256Hex(f.queryBytes), Size: int64(len(f.queryBytes)),
			Count: f.nQueries, Letters: f.letters},
		Database:    ledger.Database{Location: db, Name: "families", Type: "nucl", ManifestSHA256: f.manifestSHA, Manifest: f.manifestKey},
		Search:      spec,
		Chunks:      chunks,
		BatchStarts: starts,
		Policy:      pol})
}

// writePlan writes plan p at loc and returns the campaign's store.
func writePlan(t *testing.T, loc string, p *ledger.Plan) objstore.Store {
	t.Helper()
	st := mustOpen(t, loc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ledger.WritePlan(ctx, st, p); err != nil {
		t.Fatalf("writing plan: %v", err)
	}
	return st
}

// ---------------------------------------------------------------- partitions

// partition is one mpirun of blastfleet-engine --campaign.
type partition struct {
	id      string
	cmd     *exec.Cmd
	stdout  syncBuffer
	stderr  syncBuffer
	start   time.Time
	end     time.Time
	done    chan struct{}
	code    int // exit code; -1 when killed by a signal
	timeout bool
	summary string // --summary-json path

	mu   sync.Mutex
	seen map[proc]bool // every descendant seen, killed at the end
}

// track records the partition's descendants every 100ms while mpirun
// runs: once mpirun is gone, orphaned ranks are no longer below it.
func (p *partition) track() {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		p.mu.Lock()
		for _, c := range testenv.Descendants(p.cmd.Process.Pid) {
			p.seen[c] = true
		}
		p.mu.Unlock()
		select {
		case <-p.done:
			return
		case <-tick.C:
		}
	}
}

// survivors lists processes of the partition still alive.
func (p *partition) survivors() []proc {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []proc
	for c := range p.seen {
		if _, state, start, ok := testenv.ProcStat(c.PID); ok && start == c.Start && state != "Z" {
			out = append(out, c)
		}
	}
	return out
}

// signalAll sends sig to the partition's tree and every process of it
// ever seen.
func (p *partition) signalAll(sig syscall.Signal) {
	testenv.SignalTree(p.cmd.Process.Pid, sig)
	for _, c := range p.survivors() {
		_ = syscall.Kill(c.PID, sig)
	}
}

// killAll kills every process of the partition.
func (p *partition) killAll() {
	p.signalAll(syscall.SIGCONT)
	p.signalAll(syscall.SIGKILL)
}

// partitionTimeout bounds every partition; a hang is killed.
const partitionTimeout = 240 * time.Second // TestCampaignReport's partition ran past 100 s at load average 40

// engineArgs slow the search down so runs last a few seconds and can be
// hurt mid-way: small query blocks (about one query per task) and one
// task per shard.
var engineArgs = []string{"--block-letters", "300", "--group-bytes", "1"}

// startPartition runs `mpirun -np np blastfleet-engine --campaign loc
// --partition-id id` in its own process group. It is killed, with every
// descendant, when the test ends or after partitionTimeout.
func startPartition(t *testing.T, loc, id string, np int, extraEnv []string, extra ...string) *partition {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"--cache-dir", filepath.Join(dir, "cache")}, engineArgs...)
	env := append([]string{getFixture(t).slowPath}, extraEnv...)
	return launch(t, loc, id, np, partitionTimeout, env, append(args, extra...)...)
}

// launch runs `mpirun -np np blastfleet-engine --campaign loc
// --partition-id id args...` with env added, as startPartition says, killed
// after timeout.
func launch(t *testing.T, loc, id string, np int, timeout time.Duration, env []string, args ...string) *partition {
	t.Helper()
	b := bins(t)
	p := &partition{id: id, done: make(chan struct{}), summary: filepath.Join(t.TempDir(), "summary.json"), seen: map[proc]bool{}}
	argv := []string{"mpirun", "-np", strconv.Itoa(np), "--oversubscribe", "--allow-run-as-root",
		b.engine, "--campaign", loc, "--partition-id", id, "--summary-json", p.summary}
	argv = append(argv, args...)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Env = append(append(os.Environ(), mpiEnv...), env...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting partition %s: %v", id, err)
	}
	go p.track()
	go func() {
		err := p.cmd.Wait()
		p.end = time.Now()
		var ee *exec.ExitError
		switch {
		case err == nil:
			p.code = 0
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
		default:
			p.code = -2
		}
		close(p.done)
	}()
	timer := time.AfterFunc(timeout, func() {
		p.timeout = true
		p.killAll()
	})
	t.Cleanup(func() {
		timer.Stop()
		p.killAll()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Errorf("partition %s: mpirun did not exit 10s after SIGKILL", id)
		}
		if t.Failed() {
			t.Logf("partition %s stderr:\n%s", id, p.stderr.String())
		}
	})
	return p
}

// wait waits for the partition to exit and returns its exit code.
func (p *partition) wait(t *testing.T) int {
	t.Helper()
	<-p.done
	if p.timeout {
		t.Fatalf("partition %s timed out and was killed\nstderr:\n%s", p.id, p.stderr.String())
	}
	return p.code
}

// mustSucceed waits and fails the test unless the partition exits 0.
func (p *partition) mustSucceed(t *testing.T) {
	t.Helper()
	if code := p.wait(t); code != 0 {
		t.Fatalf("partition %s exited %d after %s\nstderr:\n%s", p.id, code, p.elapsed(), p.stderr.String())
	}
}

func (p *partition) elapsed() time.Duration { return p.end.Sub(p.start).Round(time.Millisecond) }

func (p *partition) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

var (
	leasedRe    = regexp.MustCompile(`"msg"="leased chunk" "queries"="(\[\d+,\d+\))" "attempt"=(\d+)`)
	committedRe = regexp.MustCompile(`"msg"="committed chunk" "queries"="(\[\d+,\d+\))"`)
	discardedRe = regexp.MustCompile(`(?:chunk was committed by another partition first; ours is discarded|chunk was taken over by another partition while ours ran; ours is dropped)" "queries"="(\[\d+,\d+\))"`)
)

// leased lists the chunks this partition leased, in order.
func (p *partition) leased() []string { return matches(leasedRe, p.stderr.String()) }

// committed lists the chunks this partition committed, by its log.
func (p *partition) committed() []string { return matches(committedRe, p.stderr.String()) }

func (p *partition) discarded() []string { return matches(discardedRe, p.stderr.String()) }

func matches(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// waitFor polls cond every 20ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	testenv.Eventually(t, what, timeout, 20*time.Millisecond, func() (bool, string) { return cond(), "" })
}

// waitLeased waits until the partition has leased n chunks.
func (p *partition) waitLeased(t *testing.T, n int) {
	t.Helper()
	waitFor(t, 60*time.Second, fmt.Sprintf("partition %s to lease %d chunks", p.id, n), func() bool {
		if p.exited() {
			t.Fatalf("partition %s exited (%d) before leasing %d chunks\n%s", p.id, p.code, n, p.stderr.String())
		}
		return len(p.leased()) >= n
	})
}

// waitCommitted waits until the partition has committed n chunks.
func (p *partition) waitCommitted(t *testing.T, n int) {
	t.Helper()
	waitFor(t, 60*time.Second, fmt.Sprintf("partition %s to commit %d chunks", p.id, n), func() bool {
		if p.exited() {
			t.Fatalf("partition %s exited (%d) before committing %d chunks\n%s", p.id, p.code, n, p.stderr.String())
		}
		return len(p.committed()) >= n
	})
}

// realBLAST is the environment entry that undoes the slow blastn.
func realBLAST() string { return "PATH=" + os.Getenv("PATH") }

func (p *partition) readSummary(t *testing.T) *runrecord.Summary {
	t.Helper()
	b, err := os.ReadFile(p.summary)
	if err != nil {
		t.Fatalf("partition %s: --summary-json: %v", p.id, err)
	}
	var s runrecord.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("partition %s: --summary-json: %v", p.id, err)
	}
	return &s
}

// ---------------------------------------------------------------- processes

type proc = testenv.Proc

// ranks returns the partition's engine processes by MPI rank.
func (p *partition) ranks() map[int]proc { return testenv.EngineRanks(p.cmd.Process.Pid) }

// killRank SIGKILLs the rank's engine process and returns when it did.
func (p *partition) killRank(t *testing.T, rank int) time.Time {
	t.Helper()
	var pr proc
	waitFor(t, 20*time.Second, fmt.Sprintf("rank %d of partition %s", rank, p.id), func() bool {
		var ok bool
		pr, ok = p.ranks()[rank]
		return ok
	})
	if err := syscall.Kill(pr.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing rank %d (pid %d): %v", rank, pr.PID, err)
	}
	return time.Now()
}

// ---------------------------------------------------------------- checks

// chunkRecords are a chunk's ledger records, read as a test would.
type chunkRecords struct {
	r        string // "[first,end)"
	dir      string
	commit   map[string]any
	attempts []attemptJSON
	results  []string // result-* objects present
}

type attemptJSON struct {
	Number    int       `json:"number"`
	Holder    string    `json:"holder"`
	StartedAt time.Time `json:"startedAt"`
	Failure   *struct {
		Message  string `json:"message"`
		ExitCode int    `json:"exitCode"`
	} `json:"failure"`
	Stop *struct {
		Reason string `json:"reason"`
	} `json:"stop"`
}

// readChunks lists every chunk directory's records.
func readChunks(t *testing.T, st objstore.Store) map[string]*chunkRecords {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	infos, err := st.List(ctx, "chunks/")
	if err != nil {
		t.Fatalf("listing chunks: %v", err)
	}
	out := map[string]*chunkRecords{}
	for _, in := range infos {
		rest := strings.TrimPrefix(in.Key, "chunks/")
		dir, name, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		var first, end int
		if _, err := fmt.Sscanf(dir, "%d-%d", &first, &end); err != nil {
			continue
		}
		c := out[dir]
		if c == nil {
			c = &chunkRecords{r: fmt.Sprintf("[%d,%d)", first, end), dir: "chunks/" + dir + "/"}
			out[dir] = c
		}
		switch {
		case name == "commit.json":
			b, _, err := st.GetBytes(ctx, in.Key)
			if err == nil {
				_ = json.Unmarshal(b, &c.commit)
			}
		case name == "attempts.json":
			b, _, err := st.GetBytes(ctx, in.Key)
			if err == nil {
				var rec struct {
					Attempts []attemptJSON `json:"attempts"`
				}
				_ = json.Unmarshal(b, &rec)
				c.attempts = rec.Attempts
			}
		case strings.HasPrefix(name, "result-"):
			c.results = append(c.results, in.Key)
		}
	}
	return out
}

// outcome is the chunk's commit.json outcome ("" if none).
func (c *chunkRecords) outcome() string {
	s, _ := c.commit["outcome"].(string)
	return s
}

// verifyOpts says what a finished campaign must look like.
type verifyOpts struct {
	want       []byte // expected StreamResults output
	failed     []int  // queries expected failed
	parts      []*partition
	voids      int      // commits legitimately voided (and redone)
	noOrphans  bool     // no uncommitted result object may be left
	needResult bool     // the assembled result object must exist
	f          *fixture // whose queries; nil: the shared fixture's
}

// verify checks a finished campaign: complete, each query's result once,
// output identical to the reference, nothing committed twice.
func verify(t *testing.T, st objstore.Store, o verifyOpts) *ledger.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := ledger.ReadStatus(ctx, st)
	if err != nil {
		t.Fatalf("campaign status: %v", err)
	}
	f := fix
	if o.f != nil {
		f = o.f
	}
	if !s.Complete || s.Committed+s.Failed != s.Chunks || s.QueriesDone+s.QueriesFailed != f.nQueries || s.QueriesFailed != len(o.failed) {
		t.Fatalf("campaign status %+v: want complete, %d queries, %d failed", s, f.nQueries, len(o.failed))
	}
	if len(s.Problems) > 0 {
		t.Errorf("status reports problems in a finished campaign: %v", s.Problems)
	}
	var got bytes.Buffer
	if err := ledger.StreamResults(ctx, st, &got); err != nil {
		t.Fatalf("streaming results: %v", err)
	}
	if d := refsearch.Diff(got.Bytes(), o.want); d != "" || !bytes.Equal(got.Bytes(), o.want) {
		t.Fatalf("campaign results differ from the reference (%d vs %d bytes): %s", got.Len(), len(o.want), d)
	}
	checkEachQueryOnce(t, got.Bytes())
	// The assembled result, when there, is the same bytes.
	res, _, err := st.GetBytes(ctx, ledger.ResultKey)
	switch {
	case err == nil:
		if !bytes.Equal(res, got.Bytes()) {
			t.Errorf("assembled %s (%d bytes) differs from the streamed results (%d bytes)", ledger.ResultKey, len(res), got.Len())
		}
	case errors.Is(err, objstore.ErrNotExist):
		if o.needResult {
			t.Errorf("campaign complete but no assembled %s", ledger.ResultKey)
		}
	default:
		t.Fatalf("reading %s: %v", ledger.ResultKey, err)
	}
	// Nothing committed twice: by the partitions' logs, each chunk range
	// was committed at most once (plus legitimate redoes after a void),
	// and every committed chunk's marker names a holder that logged it.
	commits := map[string]int{}
	total := 0
	for _, p := range o.parts {
		for _, r := range p.committed() {
			commits[r]++
			total++
		}
	}
	for r, n := range commits {
		if n > 1 && o.voids == 0 {
			t.Errorf("chunk %s committed %d times by the partitions' logs", r, n)
		}
	}
	if total > s.Committed+o.voids {
		t.Errorf("partitions logged %d commits, the ledger holds %d committed chunks (+%d voided)", total, s.Committed, o.voids)
	}
	chunks := readChunks(t, st)
	orphans := 0
	for _, c := range chunks {
		key, _ := c.commit["resultKey"].(string)
		for _, r := range c.results {
			if c.outcome() != "committed" || r != key {
				orphans++
				if o.noOrphans {
					t.Errorf("chunk %s: result %s is not the committed one (%v)", c.r, r, c.commit["resultKey"])
				}
			}
		}
	}
	if orphans > 0 {
		t.Logf("%d uncommitted result objects left (from killed attempts)", orphans)
	}
	if len(o.failed) > 0 {
		var fq []int
		for _, q := range s.FailedQueries {
			fq = append(fq, q.Query)
		}
		sort.Ints(fq)
		if fmt.Sprint(fq) != fmt.Sprint(o.failed) {
			t.Errorf("failed queries %v, want %v", fq, o.failed)
		}
	}
	return s
}

// checkEachQueryOnce: every query's lines are one contiguous run.
func checkEachQueryOnce(t *testing.T, out []byte) {
	t.Helper()
	if q := refsearch.SplitQuery(out); q != "" {
		t.Fatalf("query %s's results appear twice (not contiguous)", q)
	}
}

// takeover measures, from the ledger, the time from when died to the first
// attempt by another holder on a chunk the dead partition (holder prefix
// dead+"-") held then without committing it.
func takeover(t *testing.T, st objstore.Store, dead string, died time.Time) (time.Duration, bool) {
	t.Helper()
	best := time.Duration(-1)
	for _, c := range readChunks(t, st) {
		// A chunk the dead partition's master recorded as stopped (mpirun
		// SIGTERMs the other ranks when one dies) was released on purpose:
		// its takeover waits for no expiry.
		held := false
		for _, a := range c.attempts {
			if strings.HasPrefix(a.Holder, dead+"-") && a.StartedAt.Before(died) && a.Stop == nil {
				held = true
			}
		}
		if !held {
			continue
		}
		if h, _ := c.commit["holder"].(string); strings.HasPrefix(h, dead+"-") {
			continue // it committed that chunk before dying
		}
		for _, a := range c.attempts {
			if !strings.HasPrefix(a.Holder, dead+"-") && a.StartedAt.After(died) {
				if d := a.StartedAt.Sub(died); best < 0 || d < best {
					best = d
				}
				break
			}
		}
	}
	return best, best >= 0
}

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu         sync.Mutex
	buf        bytes.Buffer
	lastCommit time.Time // when a "committed chunk" line last arrived
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bytes.Contains(p, []byte(`"msg"="committed chunk"`)) {
		b.lastCommit = time.Now()
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) lastCommitAt() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastCommit
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// checkNoSurvivors: once mpirun is gone, none of the partition's engine
// processes (nor BLAST under them) may live on, or an orphaned master
// would keep renewing its leases. It waits up to grace.
func (p *partition) checkNoSurvivors(t *testing.T, grace time.Duration) {
	t.Helper()
	<-p.done
	deadline := time.Now().Add(grace)
	var left []proc
	for {
		left = p.survivors()
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) == 0 {
		return
	}
	var names []string
	for _, c := range left {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", c.PID))
		names = append(names, fmt.Sprintf("%d:%s", c.PID, filepath.Base(exe)))
	}
	t.Errorf("partition %s: processes outlived mpirun by %s: %v", p.id, grace, names)
	p.killAll()
}
