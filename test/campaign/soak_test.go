package campaign_e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// soakSize is how big and how hurt a chaos soak is.
type soakSize struct {
	queries, chunk int           // queries, and queries per chunk
	partitions     int           // partitions kept running
	killEvery      time.Duration // a random partition SIGKILLed (and replaced) this often
	minioRestarts  int           // MinIO restarts, spread over the campaign's progress
	deadline       time.Duration // the campaign must be complete by then
	speed          string        // the chaos run's --sim-speed: slow enough for the kills to land
}

// soakSizes: the long soak (BLASTFLEET_SOAK=1, make test-soak), else a
// short one for make test.
func soakSizes() soakSize {
	if soak() {
		return soakSize{queries: 100_000, chunk: 400, partitions: 6, killEvery: 20 * time.Second, minioRestarts: 2,
			deadline: 30 * time.Minute, speed: "0.8"}
	}
	return soakSize{queries: 3000, chunk: 150, partitions: 2, killEvery: 5 * time.Second, minioRestarts: 1,
		deadline: 100 * time.Second, speed: "5"}
}

// soakFaults are the chaos soak's store faults: every kind, and in the
// long soak also writes acknowledged and lost, and stale listings. Not
// of attempts.json: an attempt lost from the record cannot be told from
// one never made, which checkAccounted must (TestBrokenStoreSoak loses
// those too).
func soakFaults() faultproxy.Faults {
	f := storeFaults
	if soak() {
		f.LostWrite, f.StaleList, f.MaxStale = 0.02, 0.2, 3*time.Second
		f.Only = func(r *http.Request) bool {
			return r.Method != http.MethodPut || !strings.HasSuffix(r.URL.Path, "/attempts.json")
		}
	}
	return f
}

// soakSkew is how far ahead the last partition's ledger clock runs: with
// expiry judged on the taker's own clock it must take no live lease.
const soakSkew = "1h"

// simSearch is the simulate backend's model, the same in every partition
// (same seed, same output, whatever the speed): a few hits per query.
// Speed sets how long tasks take.
func simSearch(speed string) []string {
	return []string{"--backend", "simulate", "--sim-seed", "11", "--sim-shards", "2", "--sim-subjects", "20000",
		"--sim-results", "1-4", "--sim-speed", speed, "--write-buffer", "256KiB"}
}

// soakQueries is n seeded nucleotide queries of 40-200 letters.
func soakQueries(n int) (fasta []byte, letters int64) {
	r := rand.New(rand.NewPCG(uint64(n), 17))
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, ">sq%06d\n", i)
		l := 40 + r.IntN(161)
		for range l {
			b.WriteByte("ACGT"[r.IntN(4)])
		}
		b.WriteByte('\n')
		letters += int64(l)
	}
	return b.Bytes(), letters
}

// soakTally is what the chaos did.
type soakTally struct {
	kills, replaced, minioRestarts int
	parts                          []*partition
	skewed                         []*partition // with the ledger clock soakSkew ahead
}

// TestChaosSoak runs a campaign on the simulate backend with partitions
// reaching MinIO through the fault proxy (every fault on), one of them
// with its ledger clock an hour ahead, a random partition SIGKILLed and
// replaced every killEvery, and MinIO restarted as the campaign
// progresses. Its result must be the same bytes as a fault-free run of
// the same plan: no query lost, none twice, every attempt accounted for.
func TestChaosSoak(t *testing.T) {
	requireTools(t, "mpirun")
	size := soakSizes()
	m := testenv.StartMinIO(t)
	m.Setenv(t)
	m.MakeBucket(t, "data")
	m.MakeBucket(t, "campaigns")
	e := &env{minio: m, qloc: "s3://data/soak.fa"}
	fasta, letters := soakQueries(size.queries)
	putObject(t, e.qloc, fasta)
	plan := func(loc string) objstore.Store {
		return writePlan(t, loc, &ledger.Plan{SchemaVersion: ledger.SchemaVersion, Name: "soak",
			Queries: ledger.Queries{Location: e.qloc, SHA256: sha256Hex(fasta), Size: int64(len(fasta)),
				Count: size.queries, Letters: letters},
			Database: ledger.Database{Location: "s3://data/simulated", Name: "simulated", Type: "nucl", ManifestSHA256: sha256Hex(nil)},
			Search:   search.MustParse(search.Request{Program: "blastn", Outfmt: outfmt, MaxTargetSeqs: 500, TopHits: "auto", Batching: "alone"}),
			Chunks:   ledger.ChunkByQueries(size.queries, size.chunk),
			Policy:   testPolicy})
	}

	// The fault-free run: one partition, straight to MinIO, at full speed.
	refSt := plan("s3://campaigns/soak-reference")
	refStart := time.Now()
	ref := launch(t, "s3://campaigns/soak-reference", "ref", 4, size.deadline, nil, simSearch("20")...)
	ref.mustSucceed(t)
	var want bytes.Buffer
	if err := ledger.StreamResults(context.Background(), refSt, &want); err != nil {
		t.Fatal(err)
	}
	t.Logf("fault-free run: %d queries, %d bytes in %s", size.queries, want.Len(), time.Since(refStart).Round(time.Millisecond))

	loc := "s3://campaigns/soak"
	st := plan(loc)
	proxy, proxyEnv := e.proxied(t, 7, soakFaults())
	if err := proxy.UseCredentials(m.AccessKey, m.SecretKey); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tally := runChaos(t, e, loc, st, size, proxyEnv)
	elapsed := time.Since(start)

	n := proxy.Counts()
	s := verify(t, st, verifyOpts{want: want.Bytes(), parts: tally.parts, needResult: true,
		f: &fixture{nQueries: size.queries}})
	var got bytes.Buffer
	if err := ledger.StreamResults(context.Background(), st, &got); err != nil {
		t.Fatal(err)
	}
	discarded := 0
	for _, p := range tally.parts {
		discarded += len(p.discarded())
	}
	t.Logf("chaos soak: %d queries in %d chunks, %d partitions (one clock %s ahead), %d kills, %d replaced after exiting, %d MinIO restarts, elapsed %s",
		size.queries, s.Chunks, size.partitions, soakSkew, tally.kills, tally.replaced, tally.minioRestarts, elapsed.Round(time.Second))
	t.Logf("chaos soak: proxy %v", n)
	t.Logf("chaos soak: attempts %d: %d committed, %d stopped, failed %+v; %d late results discarded; result %d bytes, identical to the fault-free run: %v",
		s.Attempts, s.Committed, s.StoppedAttempts, s.FailedAttempts, discarded, got.Len(), bytes.Equal(got.Bytes(), want.Bytes()))
	logFailures(t, st)
	checkSkewed(t, st, tally)
	checkAccounted(t, s)
	checkFaultsInjected(t, n)
	if tally.kills == 0 || tally.minioRestarts != size.minioRestarts {
		t.Errorf("%d kills and %d MinIO restarts, want at least one kill and %d restarts", tally.kills, tally.minioRestarts, size.minioRestarts)
	}
}

// runChaos keeps size.partitions partitions running on the campaign at
// loc until it is complete, killing and restarting as size says.
func runChaos(t *testing.T, e *env, loc string, st objstore.Store, size soakSize, proxyEnv []string) *soakTally {
	t.Helper()
	r := newRand(99)
	tally := &soakTally{}
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	running := make([]*partition, size.partitions)
	start := func(i int) {
		env := proxyEnv
		if i == size.partitions-1 {
			env = append([]string{"BLASTFLEET_TEST_CLOCK_SKEW=" + soakSkew}, env...)
		}
		p := launch(t, loc, fmt.Sprintf("p%d", i), 2, size.deadline+time.Minute, env, simSearch(size.speed)...)
		running[i] = p
		tally.parts = append(tally.parts, p)
		if i == size.partitions-1 {
			tally.skewed = append(tally.skewed, p)
		}
	}
	for i := range running {
		start(i)
	}
	deadline := time.Now().Add(size.deadline)
	nextKill := time.Now().Add(size.killEvery)
	complete := false
	for {
		time.Sleep(time.Second)
		if time.Now().After(deadline) {
			t.Fatalf("the campaign is not complete after %s", size.deadline)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s, err := l.Status(ctx)
		cancel()
		if err == nil {
			complete = s.Complete
			// MinIO restarts at even steps of progress.
			if tally.minioRestarts < size.minioRestarts && s.Committed*(size.minioRestarts+1) >= s.Chunks*(tally.minioRestarts+1) {
				down := time.Duration(2000+r.IntN(2000)) * time.Millisecond
				e.minio.Restart(t, down)
				tally.minioRestarts++
				t.Logf("MinIO restarted (down %s) at %d of %d chunks committed", down, s.Committed, s.Chunks)
			}
		}
		exited := 0
		for i, p := range running {
			if !p.exited() {
				continue
			}
			exited++
			if !complete {
				// As the operator would: a partition that ended before the
				// campaign did is replaced.
				if p.code != 0 {
					t.Logf("partition %s exited %d before the campaign was complete: %s", p.id, p.code, lastLines(p.stderr.String(), 2))
				}
				tally.replaced++
				start(i)
			}
		}
		if complete && exited == len(running) {
			return tally
		}
		if !complete && time.Now().After(nextKill) {
			i := r.IntN(len(running))
			running[i].killAll()
			waitFor(t, 10*time.Second, "the killed partition to exit", running[i].exited)
			tally.kills++
			start(i)
			nextKill = time.Now().Add(size.killEvery)
		}
	}
}

// logFailures logs every attempt recorded failed, with its reason.
func logFailures(t *testing.T, st objstore.Store) {
	t.Helper()
	for _, c := range readChunks(t, st) {
		for _, a := range c.attempts {
			if a.Failure != nil {
				t.Logf("chunk %s attempt %d by %s failed: %s", c.r, a.Number, a.Holder, a.Failure.Message)
			}
		}
	}
}

// checkSkewed: the partition whose clock runs ahead took part (its
// attempts carry its clock's start times) and committed chunks, so the
// soak did test a clock that disagrees.
func checkSkewed(t *testing.T, st objstore.Store, tally *soakTally) {
	t.Helper()
	ahead := 0
	for _, c := range readChunks(t, st) {
		for _, a := range c.attempts {
			if a.StartedAt.After(time.Now().Add(30 * time.Minute)) {
				ahead++
			}
		}
	}
	commits := 0
	for _, p := range tally.skewed {
		commits += len(p.committed())
	}
	t.Logf("the partition %s ahead: %d attempts, %d commits", soakSkew, ahead, commits)
	if ahead == 0 || commits == 0 {
		t.Errorf("the partition whose clock runs %s ahead made %d attempts and %d commits: its clock went untested", soakSkew, ahead, commits)
	}
}
