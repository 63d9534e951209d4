package campaign_e2e

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// Issue 29's hot spot, at campaign level: the database's primary on one
// MinIO, its replica on another, each behind a fault proxy whose link
// carries storeLink bytes/s (a store is the bottleneck, as in a real
// object store). The database is one shard whose header file is about
// 52 MB (long titles, short sequences, so BLAST's work stays small): 13
// 4 MiB pieces, read from both stores at once. A worker hedges only once
// its queue of pieces is empty, so the replica's two pieces in flight
// when it turns hot are judged once the primary has read the other 11,
// two at a time: about 6.5 times slower than the primary's, well past the
// 4 times that marks a hot spot, and the replica is skipped rather than
// hedged around unnoticed. (With 9 pieces the margin was about 4.5 and
// the skip's throughput figure 1.0 MiB/s against 4.0: too close.)
const (
	storeLink    = 16 << 20
	replicaLoc   = "s3://replica/db"
	hotSpotStart = 1 << 20 // replica bytes read before it is hurt: the shard fetches have begun
)

// hotSpot is the replica's store made a hot spot: a busy node's link and
// answers.
var hotSpot = faultproxy.Faults{Bandwidth: 256 << 10, AddedLatency: 300 * time.Millisecond}

var (
	hotOnce sync.Once
	hotFix  *fixture
	hotErr  error
)

// getHotSpotFixture is the families fixture in one shard, padded to
// about 52 MB of headers.
func getHotSpotFixture(t *testing.T) *fixture {
	t.Helper()
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	hotOnce.Do(func() {
		hotFix, hotErr = buildShapedFixture(nuclFamilies(), blast.BatchingAlone,
			fixtureShape{shards: 1, padRecords: 6500, padTitleBytes: 8000, padSequenceLen: 60})
	})
	if hotErr != nil {
		t.Fatalf("fixture: %v", hotErr)
	}
	return hotFix
}

// replicated is an env whose database (s3://data/db, the primary) has a
// replica on a second MinIO (s3://replica/db, copied with dbcopy.Copy).
// Partitions reach the primary and the replica through a proxy each; the
// ledger and the queries they reach directly.
type replicated struct {
	*env
	replica           *testenv.MinIO
	primary, replica1 *faultproxy.Proxy
	partEnv           []string // the partitions' store variables
}

func newReplicated(t *testing.T) *replicated {
	t.Helper()
	e := newEnvWith(t, getHotSpotFixture(t))
	rm := testenv.StartMinIO(t)
	rm.MakeBucket(t, "replica")
	cfg := objstore.S3Config{Endpoint: rm.Host, PathStyle: true, Region: "us-east-1", AccessKey: rm.AccessKey, SecretKey: rm.SecretKey}
	bucket, err := objstore.NewS3(cfg, "replica", "")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := objstore.Prefixed(bucket, "db")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := dbcopy.Copy(ctx, mustOpen(t, e.db), dst, filepath.Dir(e.f.manifestKey), dbcopy.Options{}); err != nil {
		t.Fatalf("replicating the database: %v", err)
	}
	r := &replicated{env: e, replica: rm}
	link := faultproxy.Faults{Bandwidth: storeLink}
	r.primary = startProxy(t, e.minio.Endpoint, 1, link)
	r.replica1 = startProxy(t, rm.Endpoint, 2, link)
	r.partEnv = append(storeVars("BLASTFLEET_DATABASE_", r.primary.URL, e.minio),
		storeVars("BLASTFLEET_REPLICA1_", r.replica1.URL, rm)...)
	return r
}

// startProxy starts a fault proxy in front of target, closed at the end.
func startProxy(t *testing.T, target string, seed uint64, f faultproxy.Faults) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(target, seed, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("closing the fault proxy: %v", err)
		}
	})
	return p
}

// storeVars are one store's variables (docs/engine.md "Storage
// variables"): m's keys, reached at url.
func storeVars(prefix, url string, m *testenv.MinIO) []string {
	return []string{prefix + "AWS_ENDPOINT_URL=" + url, prefix + "AWS_ACCESS_KEY_ID=" + m.AccessKey,
		prefix + "AWS_SECRET_ACCESS_KEY=" + m.SecretKey, prefix + "AWS_REGION=us-east-1"}
}

// start runs a partition of np ranks with a cold shard cache, reading
// the database from the primary and the replica.
func (r *replicated) start(t *testing.T, loc, id string, np int) *partition {
	t.Helper()
	args := append([]string{"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--database-replica", replicaLoc}, engineArgs...)
	return launch(t, loc, id, np, partitionTimeout, append([]string{r.f.slowPath}, r.partEnv...), args...)
}

// waitReplicaReading waits until the partition's workers have read
// hotSpotStart bytes of shards from the replica.
func (r *replicated) waitReplicaReading(t *testing.T, p *partition) {
	t.Helper()
	waitFor(t, 60*time.Second, "the workers to read shards from the replica", func() bool {
		if p.exited() {
			t.Fatalf("partition %s exited (%d) before reading %d bytes from the replica (%v)\n%s",
				p.id, p.code, hotSpotStart, r.replica1.Counts(), p.stderr.String())
		}
		return r.replica1.Counts().ThrottledBytes >= hotSpotStart
	})
}

// replicaReads sums what the partition's ranks read from the replica and
// lists why they skipped it. Its pieces may be none: a hot spot's pieces
// in flight are hedged on the primary, and lost.
func replicaReads(t *testing.T, p *partition) (sum runrecord.StoreReads, reasons []string) {
	t.Helper()
	s := p.readSummary(t)
	for _, rk := range s.Ranks {
		for _, st := range rk.Stores {
			if st.Store != replicaLoc {
				continue
			}
			sum.Bytes += st.Bytes
			sum.Pieces += st.Pieces
			sum.Errors += st.Errors
			sum.Skips += st.Skips
			reasons = append(reasons, st.SkipReasons...)
		}
	}
	return sum, reasons
}

// runHurt runs a campaign in one partition of 3 ranks whose workers
// start with cold shard caches, calls hurt once they read shards from the
// replica, and checks the end: BLAST+'s reference byte for byte, every
// chunk committed by its one attempt, none failed. It returns the
// partition and what its ranks read from the replica.
func (r *replicated) runHurt(t *testing.T, hurt func()) (*partition, runrecord.StoreReads, []string) {
	t.Helper()
	loc := "s3://campaigns/" + campaignName(t)
	st := r.plan(t, loc, 3)
	a := r.start(t, loc, "A", 3)
	r.waitReplicaReading(t, a)
	hurt()
	a.mustSucceed(t)
	t.Logf("A %s; primary proxy %v; replica proxy %v", a.elapsed(), r.primary.Counts(), r.replica1.Counts())
	s := verify(t, st, verifyOpts{want: r.f.want, f: r.f, parts: []*partition{a}, noOrphans: true, needResult: true})
	checkAccounted(t, s)
	if s.Attempts != s.Chunks {
		t.Errorf("%d attempts for %d chunks: the replica's trouble made chunks be redone", s.Attempts, s.Chunks)
	}
	sum, reasons := replicaReads(t, a)
	t.Logf("replica reads: %d bytes, %d pieces, %d errors, %d skips %q", sum.Bytes, sum.Pieces, sum.Errors, sum.Skips, reasons)
	return a, sum, reasons
}

// TestHotSpot: a campaign whose workers start with cold shard caches
// reads its shard from the primary and its replica at once; once the
// shard fetches have begun, the replica's store becomes a hot spot (its
// link cut to 256 KiB/s, 300 ms added to every answer). The workers skip
// it and read on from the primary: the output is BLAST+'s reference byte
// for byte, every chunk committed by its one attempt, none failed, and
// the skip is in the run's summary and log.
func TestHotSpot(t *testing.T) {
	r := newReplicated(t)
	a, sum, reasons := r.runHurt(t, func() {
		if err := r.replica1.SetFaults(hotSpot); err != nil {
			t.Fatal(err)
		}
	})
	skipped := false
	for _, why := range reasons {
		skipped = skipped || strings.Contains(why, "skipped: ")
	}
	if sum.Skips == 0 || !skipped {
		t.Errorf("no rank recorded skipping the hot spot %s (skips %d, reasons %q)", replicaLoc, sum.Skips, reasons)
	}
	if !strings.Contains(a.stderr.String(), `"msg"="replica skipped"`) {
		t.Errorf("no worker logged the skip")
	}
}

// TestHotSpotReplicaStopped: the replica's MinIO is killed once the shard
// fetches have begun. Its reads fail over to the primary: the output is
// the reference, and no attempt failed.
func TestHotSpotReplicaStopped(t *testing.T) {
	r := newReplicated(t)
	_, sum, _ := r.runHurt(t, func() { r.replica.Stop(t) })
	// Its reads in flight either fail (connection refused) or stall until
	// they are judged slow and hedged: a failure or a skip.
	if sum.Errors == 0 && sum.Skips == 0 {
		t.Errorf("no rank recorded a failed read or a skip of the stopped replica")
	}
}
