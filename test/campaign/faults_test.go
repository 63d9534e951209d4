package campaign_e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// leaseGone is how long after a holder's death its leases can be taken:
// lease plus skew (a renewal may have happened just before the death).
var leaseGone = time.Duration(testPolicy.LeaseSeconds+testPolicy.SkewSeconds) * time.Second

// deathTimeout bounds how long mpirun may take to notice a dead rank.
const deathTimeout = 30 * time.Second

// randomPoint waits for a seeded point in p's run: after it committed
// 0-maxK of the 10 chunks, plus 0-600ms, so the fault lands mid-run however
// fast the machine is.
func randomPoint(t *testing.T, r *rand.Rand, p *partition, maxK int) {
	t.Helper()
	k, d := r.IntN(maxK+1), time.Duration(r.IntN(600))*time.Millisecond
	p.waitLeased(t, 1)
	p.waitCommitted(t, k)
	time.Sleep(d)
	if p.exited() {
		t.Fatalf("partition %s finished (%d) before the fault", p.id, p.code)
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xb1a57f1ee7)) }

// campaignName is a per-subtest campaign name.
func campaignName(t *testing.T) string {
	r := strings.NewReplacer("/", "-", "=", "", "_", "-")
	return strings.ToLower(r.Replace(t.Name()))
}

// TestKillWorkerRank SIGKILLs a worker rank of partition A at a seeded
// random time: mpirun aborts A; a fresh partition B takes A's chunks over
// once their leases expire and finishes the campaign.
func TestKillWorkerRank(t *testing.T) {
	killRankTest(t, func(r *rand.Rand) int { return 1 + r.IntN(2) })
}

// TestKillMaster is TestKillWorkerRank with rank 0, the master that holds
// the leases.
func TestKillMaster(t *testing.T) {
	killRankTest(t, func(*rand.Rand) int { return 0 })
}

func killRankTest(t *testing.T, pick func(*rand.Rand) int) {
	e := newEnv(t)
	for _, seed := range seeds() {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := newRand(seed)
			loc := "s3://campaigns/" + campaignName(t)
			st := e.plan(t, loc, 3)
			a := startPartition(t, loc, "A", 3, nil)
			randomPoint(t, r, a, 4)
			rank := pick(r)
			died := a.killRank(t, rank)
			waitFor(t, deathTimeout, "mpirun to abort partition A", a.exited)
			a.checkNoSurvivors(t, 5*time.Second)
			held := a.leased()
			t.Logf("killed rank %d of A %s after its start; mpirun exited %d %s after the kill; A had leased %v, committed %v",
				rank, died.Sub(a.start).Round(time.Millisecond), a.code, a.end.Sub(died).Round(time.Millisecond), held, a.committed())
			if a.code == 0 {
				t.Errorf("partition A exited 0 although rank %d was killed", rank)
			}
			b := startPartition(t, loc, "B", 3, nil)
			b.mustSucceed(t)
			verify(t, st, verifyOpts{want: e.f.want, parts: []*partition{a, b}, needResult: true})
			logTakeover(t, st, "A", died, b)
		})
	}
}

func logTakeover(t *testing.T, st objstore.Store, dead string, died time.Time, by *partition) {
	t.Helper()
	d, ok := takeover(t, st, dead, died)
	if !ok {
		t.Logf("takeover: %s held no unfinished chunk at its death", dead)
		return
	}
	t.Logf("takeover: first new lease on a chunk %s held came %s after its death (lease %ds + skew %ds; %s started %s after the death)",
		dead, d.Round(time.Millisecond), testPolicy.LeaseSeconds, testPolicy.SkewSeconds, by.id, by.start.Sub(died).Round(time.Millisecond))
	if d < time.Duration(testPolicy.LeaseSeconds-testPolicy.RenewSeconds)*time.Second {
		t.Errorf("a chunk of %s was taken over %s after its death, before its lease could have expired", dead, d)
	}
}

// TestKillPartition SIGKILLs mpirun and every process under it while a
// second partition works on the same campaign; the second finishes it.
func TestKillPartition(t *testing.T) {
	e := newEnv(t)
	for _, seed := range seeds() {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			loc := "s3://campaigns/" + campaignName(t)
			st := e.plan(t, loc, 3)
			a, b, died := killOneOfTwo(t, loc, newRand(seed), 3, 3, 2)
			verify(t, st, verifyOpts{want: e.f.want, parts: []*partition{a, b}, needResult: true})
			logTakeover(t, st, "A", died, b)
		})
	}
}

// killOneOfTwo starts partitions A and B (npA and npB ranks) on the
// campaign at loc, SIGKILLs A and everything under it at a random point
// once B holds a lease (after at most maxK of A's commits), and waits for
// B to finish the campaign.
func killOneOfTwo(t *testing.T, loc string, r *rand.Rand, npA, npB, maxK int) (a, b *partition, died time.Time) {
	t.Helper()
	a = startPartition(t, loc, "A", npA, nil)
	b = startPartition(t, loc, "B", npB, nil)
	b.waitLeased(t, 1)
	randomPoint(t, r, a, maxK)
	a.killAll()
	died = time.Now()
	waitFor(t, 10*time.Second, "partition A to die", a.exited)
	a.checkNoSurvivors(t, 2*time.Second)
	t.Logf("killed partition A %s after its start; it had leased %v, committed %v",
		died.Sub(a.start).Round(time.Millisecond), a.leased(), a.committed())
	b.mustSucceed(t)
	t.Logf("partition B finished %s after A's death", b.end.Sub(died).Round(time.Millisecond))
	return a, b, died
}

// TestMinIORestart kills the MinIO server mid-run and starts it again on
// the same port and data directory a few seconds later. The partition
// rides it out, or, if it exits with an error, a restarted partition
// finishes the campaign; the test reports which happened.
func TestMinIORestart(t *testing.T) {
	e := newEnv(t)
	runs := seeds()[:1]
	if soak() {
		runs = seeds()
	}
	outer := t // the restarted server outlives each seed's subtest
	for _, seed := range runs {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := newRand(seed)
			loc := "s3://campaigns/" + campaignName(t)
			st := e.plan(t, loc, 3)
			a := startPartition(t, loc, "A", 3, nil)
			randomPoint(t, r, a, 4)
			down := time.Duration(2000+r.IntN(3000)) * time.Millisecond
			stopped := time.Now()
			e.minio.Stop(outer)
			time.Sleep(down)
			e.minio.Start(outer)
			t.Logf("MinIO killed %s after A's start, down for %s (live again after %s); A had committed %v",
				stopped.Sub(a.start).Round(time.Millisecond), down, time.Since(stopped).Round(time.Millisecond), a.committed())
			parts := []*partition{a}
			if code := a.wait(t); code == 0 {
				t.Logf("partition A rode the restart out: exited 0 after %s", a.elapsed())
			} else {
				t.Logf("partition A exited %d after the restart; a restarted partition finishes the campaign\nA's error: %s",
					code, lastLines(a.stderr.String(), 5))
				b := startPartition(t, loc, "B", 3, nil)
				b.mustSucceed(t)
				parts = append(parts, b)
			}
			if n := strings.Count(a.stderr.String(), "renewing lease"); n > 0 {
				t.Logf("A logged %d failed lease renewals", n)
			}
			s := verify(t, st, verifyOpts{want: e.f.want, parts: parts, needResult: true})
			t.Logf("after the restart: %d attempts for %d chunks (%d retries)", s.Attempts, s.Chunks, s.Retries)
		})
	}
}

// TestPausedPartition SIGSTOPs every process of partition A mid-chunk for
// longer than a lease and its skew, while B works on the campaign too: B
// takes A's chunks over and finishes. Then A resumes: its late commits
// must get ErrAlreadyCommitted and be discarded, and it must exit.
func TestPausedPartition(t *testing.T) {
	e := newEnv(t)
	runs := seeds()[:1]
	if soak() {
		runs = seeds()
	}
	for _, seed := range runs {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := newRand(seed)
			loc := "s3://campaigns/" + campaignName(t)
			st := e.plan(t, loc, 3)
			a := startPartition(t, loc, "A", 3, nil)
			b := startPartition(t, loc, "B", 3, nil)
			randomPoint(t, r, a, 4)
			a.signalAll(syscall.SIGSTOP)
			paused := time.Now()
			// What A wrote before it stopped may still be in its stderr
			// pipe: let the reader drain it (a stopped A writes no more).
			time.Sleep(300 * time.Millisecond)
			heldAtPause := a.leased()
			committedAtPause := a.committed()
			b.mustSucceed(t)
			pausedFor := time.Since(paused)
			if pausedFor < leaseGone {
				time.Sleep(leaseGone - pausedFor)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if s, err := ledger.ReadStatus(ctx, st); err != nil || !s.Complete {
				t.Fatalf("B finished but the campaign is not complete: %+v, %v", s, err)
			}
			a.signalAll(syscall.SIGCONT)
			resumed := time.Now()
			t.Logf("A paused %s after its start for %s (lease %ds + skew %ds); it held %v, had committed %v; B finished %s after the pause",
				paused.Sub(a.start).Round(time.Millisecond), resumed.Sub(paused).Round(time.Millisecond),
				testPolicy.LeaseSeconds, testPolicy.SkewSeconds, heldAtPause, committedAtPause, b.end.Sub(paused).Round(time.Millisecond))
			waitFor(t, 60*time.Second, "partition A to exit after SIGCONT", a.exited)
			a.checkNoSurvivors(t, 5*time.Second)
			late := a.committed()[len(committedAtPause):]
			t.Logf("A exited %d %s after SIGCONT; after resuming it committed %v and discarded %v",
				a.code, a.end.Sub(resumed).Round(time.Millisecond), late, a.discarded())
			if a.code != 0 {
				t.Errorf("partition A exited %d after resuming\n%s", a.code, lastLines(a.stderr.String(), 10))
			}
			if len(late) > 0 {
				t.Errorf("A committed %v after resuming, although B had completed the campaign", late)
			}
			// Paused mid-chunk (per the ledger: a chunk A leased was later
			// taken over), A must find its late result beaten and discard
			// it, or its upload aborted by the taker and drop it, without
			// recording a failure; a pause between chunks leaves nothing.
			if _, midChunk := takeover(t, st, "A", paused); midChunk && len(a.discarded()) == 0 {
				t.Errorf("A was paused mid-chunk but discarded no late result")
			}
			verify(t, st, verifyOpts{want: e.f.want, parts: []*partition{a, b}, noOrphans: true, needResult: true})
			logTakeover(t, st, "A", paused, b)
		})
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
