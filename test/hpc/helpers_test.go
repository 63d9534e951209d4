package hpc_e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// fixture is a nucleotide database of families with near-identical
// members, its queries and each query's reference result (searched alone
// on the unsharded database), built once.
type fixture struct {
	dir, fasta, queries string
	want                []byte
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
)

const outfmt = "6 std"

func getFixture(t *testing.T) *fixture {
	t.Helper()
	testenv.RequireTools(t, "blastn", "makeblastdb", "mpirun")
	fixOnce.Do(func() { fix, fixErr = buildFixture() })
	if fixErr != nil {
		t.Fatalf("fixture: %v", fixErr)
	}
	return fix
}

func buildFixture() (*fixture, error) {
	dir, err := os.MkdirTemp("", "blastfleet-hpc-fixture-")
	if err != nil {
		return nil, err
	}
	fixDir = dir
	f := &fixture{dir: dir, fasta: filepath.Join(dir, "db.fa"), queries: filepath.Join(dir, "q.fa")}
	var db, q bytes.Buffer
	o := synth.Options{Seed: 17, Families: 16, Members: 8, MinLen: 300, MaxLen: 800, Mutation: 0.04,
		Queries: 40, QueryFrac: 0.6, Unrelated: 20, Duplicates: 2}
	if err := synth.Write(o, &db, &q); err != nil {
		return nil, err
	}
	if err := os.WriteFile(f.fasta, db.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(f.queries, q.Bytes(), 0o644); err != nil {
		return nil, err
	}
	ctx := context.Background()
	unsharded, err := refsearch.MakeDB(ctx, f.fasta, "nucl", dir)
	if err != nil {
		return nil, err
	}
	if f.want, err = refsearch.SearchAlone(ctx, "blastn", unsharded, f.queries, outfmt, "-max_target_seqs", "500"); err != nil {
		return nil, err
	}
	return f, nil
}

var fixDir string

// site is one test's world: a MinIO holding the database, the queries and
// a campaign planned with the CLI, and the environment a site's user has
// (credentials, Slurm, a BLAST slowed so the campaign lasts).
type site struct {
	t        *testing.T
	f        *fixture
	minio    *testenv.MinIO
	campaign string // its ledger location
	name     string // its prefix in bucket campaigns
	env      []string
	bins     testenv.Binaries
	jobDirs  []string // where jobs were submitted from: their logs
}

// newSite plans a campaign of chunks of chunkQueries queries, each query
// searched alone (the fixture's queries are one BLAST+ batch, and the
// sites' tests want many chunks); every BLAST run of its partitions first
// sleeps delay seconds.
func newSite(t *testing.T, chunkQueries int, delay string) *site {
	t.Helper()
	f := getFixture(t)
	s := &site{t: t, f: f, bins: testenv.BuiltBinaries(t)}
	// The store's credentials go to the CLI, sbatch and mpirun through
	// env, never this process's environment: the tests run in parallel.
	s.minio = testenv.StartMinIO(t)
	s.minio.MakeBucket(t, "data")
	s.minio.MakeBucket(t, "campaigns")
	s.env = append(append(append(append(os.Environ(), testenv.MPIEnv...), slurm.Env...), s.minio.Env()...),
		"AWS_SESSION_TOKEN=", "PATH="+slowBlast(t, delay))
	s.cli("db", "shard", "--input", f.fasta, "--type", "nucl", "--shards", "3", "--name", "families", "--output", "s3://data/db")
	s.put("q.fa", f.queries)
	s.name = strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	s.campaign = "s3://campaigns/" + s.name
	s.cli("campaign", "plan", "--queries", "s3://data/q.fa", "--database", "s3://data/db", "--program", "blastn",
		"--outfmt", outfmt, "--chunk-queries", fmt.Sprint(chunkQueries), "--batching", "alone", "--output", s.campaign)
	return s
}

// store is bucket/prefix of the test's MinIO.
func (s *site) store(bucket, prefix string) objstore.Store {
	s.t.Helper()
	cfg := objstore.S3Config{Endpoint: s.minio.Host, PathStyle: true, Region: "us-east-1", AccessKey: s.minio.AccessKey, SecretKey: s.minio.SecretKey}
	st, err := objstore.NewS3(cfg, bucket, prefix)
	if err != nil {
		s.t.Fatal(err)
	}
	return st
}

// put uploads a local file into bucket data.
func (s *site) put(key, path string) {
	s.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.store("data", "").Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		s.t.Fatal(err)
	}
}

// cli runs the blastfleet CLI as the site's user would, in dir.
func (s *site) cliIn(dir string, args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bins.CLI, args...)
	cmd.Env, cmd.Dir = s.env, dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("blastfleet %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *site) cli(args ...string) string { return s.cliIn(s.t.TempDir(), args...) }

// submit submits one Slurm job of the campaign at site name and returns
// its id and the directory it was submitted from (its log is there).
func (s *site) submit(name string, extra ...string) (string, string) {
	s.t.Helper()
	dir := s.t.TempDir()
	args := append([]string{"hpc", "submit", s.campaign, "--site", name, "--nodes", "1", "--ntasks-per-node", "2",
		"--engine", s.bins.Engine}, extra...)
	s.jobDirs = append(s.jobDirs, dir)
	out := s.cliIn(dir, args...)
	var id string
	if _, err := fmt.Sscanf(out, "submitted job %s", &id); err != nil {
		s.t.Fatalf("hpc submit printed %q", out)
	}
	return strings.TrimSuffix(id, ":"), dir
}

// partition is a cluster-side partition: mpirun of the engine at site
// "cloud", as the operator's MPIJob runs it.
type partition struct {
	cmd    *exec.Cmd
	out    bytes.Buffer
	done   chan struct{}
	err    error
	closed sync.Once
}

func (s *site) startPartition(id string) *partition {
	s.t.Helper()
	p := &partition{done: make(chan struct{})}
	p.cmd = exec.Command("mpirun", "-np", "2", "--oversubscribe", s.bins.Engine, "--campaign", s.campaign,
		"--site", "cloud", "--partition-id", id, "--cache-dir", s.t.TempDir())
	p.cmd.Env = s.env
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	s.t.Cleanup(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

func (p *partition) mustSucceed(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		t.Fatalf("partition still running after %v:\n%s", within, p.out.String())
	}
	if p.err != nil {
		t.Fatalf("partition: %v\n%s", p.err, p.out.String())
	}
}

func (s *site) status() *ledger.Status {
	s.t.Helper()
	status, err := ledger.ReadStatus(context.Background(), s.store("campaigns", s.name))
	if err != nil {
		s.t.Fatal(err)
	}
	return status
}

func siteOf(st *ledger.Status, name string) ledger.SiteStatus {
	for _, s := range st.Sites {
		if s.Name == name {
			return s
		}
	}
	return ledger.SiteStatus{Name: name}
}

// waitSite polls the ledger until cond holds for the site's progress.
func (s *site) waitSite(name string, within time.Duration, what string, cond func(ledger.SiteStatus) bool) ledger.SiteStatus {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		ss := siteOf(s.status(), name)
		if cond(ss) {
			return ss
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("site %s: %s not seen within %v (last %+v)\n%s", name, what, within, ss, s.jobLogs())
		}
		time.Sleep(time.Second)
	}
}

// jobState is the job's state in squeue, "" once it has left the queue.
func (s *site) jobState(id string) string {
	out, _ := slurm.Command(context.Background(), "squeue", "--noheader", "--jobs", id, "--format", "%T").Output()
	return strings.TrimSpace(string(out))
}

func (s *site) waitJobGone(id string, within time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for s.jobState(id) != "" {
		if time.Now().After(deadline) {
			s.t.Fatalf("job %s still %s after %v", id, s.jobState(id), within)
		}
		time.Sleep(time.Second)
	}
}

// jobLogs are the logs of the jobs this test submitted, for failures.
func (s *site) jobLogs() string {
	var b strings.Builder
	for _, dir := range s.jobDirs {
		matches, _ := filepath.Glob(filepath.Join(dir, "*.log"))
		for _, m := range matches {
			data, _ := os.ReadFile(m)
			fmt.Fprintf(&b, "--- %s\n%s\n", m, data)
		}
	}
	return b.String()
}

// verify checks the campaign's result against each query's reference,
// and that no attempt failed: stops, not failures.
func (s *site) verify() *ledger.Status {
	s.t.Helper()
	var got bytes.Buffer
	if err := ledger.StreamResults(context.Background(), s.store("campaigns", s.name), &got); err != nil {
		s.t.Fatal(err)
	}
	if d := refsearch.Diff(got.Bytes(), s.f.want); d != "" {
		s.t.Fatalf("the campaign's result differs from BLAST's: %s", d)
	}
	status := s.status()
	if fa := status.FailedAttempts; fa != (ledger.FailureKinds{}) || status.QueriesFailed != 0 {
		s.t.Errorf("failed attempts %+v, %d queries failed: want none", fa, status.QueriesFailed)
	}
	return status
}
