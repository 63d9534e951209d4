package campaign_e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
)

// A store that breaks its promises: it acknowledges writes it does not
// keep, and lists objects as they were before the latest writes. Either
// way a campaign's result must be the same bytes as the unsharded
// search, no chunk committed twice, none lost, no failure on record.

// writeKind names what a PUT writes in a campaign, for picking which to
// lose.
func writeKind(r *http.Request) string {
	if r.Method != http.MethodPut || r.Header.Get("X-Amz-Copy-Source") != "" {
		return ""
	}
	path := r.URL.Path
	switch {
	case r.URL.Query().Has("partNumber"):
		return "result part"
	case strings.HasSuffix(path, "/commit.json") && r.Header.Get("If-None-Match") == "*":
		return "commit marker"
	case strings.HasSuffix(path, "/lease.json") && r.Header.Get("If-None-Match") == "*":
		return "lease"
	case strings.HasSuffix(path, "/"+ledger.ResultKey):
		return "assembled result"
	case strings.HasSuffix(path, "/assembled.json"):
		return "assembled marker"
	}
	return ""
}

// loser picks the nth write of each kind to lose (1-based), and
// remembers what it picked.
type loser struct {
	mu     sync.Mutex
	nth    map[string][]int
	seen   map[string]int
	picked map[string]int
}

func newLoser(nth map[string][]int) *loser {
	return &loser{nth: nth, seen: map[string]int{}, picked: map[string]int{}}
}

func (l *loser) pick(r *http.Request) bool {
	k := writeKind(r)
	if k == "" {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen[k]++
	for _, n := range l.nth[k] {
		if n == l.seen[k] {
			l.picked[k]++
			return true
		}
	}
	return false
}

// TestLostAckedWrites: two partitions reach MinIO through a proxy that
// acknowledges some writes (200, the body's ETag) and keeps none of
// them: the first and third commit markers, the first lease, the second
// part of a result, the assembled result and its marker. The ledger
// must find each loss and redo what it lost (a lost commit marker is
// read back and written again; a lost part fails its upload, which is
// the store's fault and no chunk's; a lost result or marker is
// assembled again), never report a loss as done.
func TestLostAckedWrites(t *testing.T) {
	e := newEnv(t)
	lose := newLoser(map[string][]int{"commit marker": {1, 3}, "lease": {1}, "result part": {2},
		"assembled result": {1}, "assembled marker": {1}})
	parts, st, n := e.runTwo(t, 1, faultproxy.Faults{LostWrite: 1, Only: lose.pick})
	t.Logf("lost %v", n.LostWriteKeys)
	s := verify(t, st, verifyOpts{want: e.f.want, parts: parts, needResult: true})
	checkChaosAccounted(t, st, s)
	for k, want := range lose.nth {
		if lose.picked[k] != len(want) {
			t.Errorf("lost %d writes of %s, want %d (%v): the campaign wrote %d", lose.picked[k], k, len(want), want, lose.seen[k])
		}
	}
	if n.LostWrites != int64(len(n.LostWriteKeys)) || n.LostWrites < 6 {
		t.Errorf("proxy %v: want every picked write lost", n)
	}
}

// TestStaleListings: two partitions whose listings are, half the time,
// an answer to the same listing up to 3 s old: chunks committed,
// leased or voided since are not in it. Leases, commits and the result
// must not trust a listing: the result is the same, each chunk committed
// once, no result left over.
func TestStaleListings(t *testing.T) {
	e := newEnv(t)
	parts, st, n := e.runTwo(t, 1, faultproxy.Faults{StaleList: 0.5, MaxStale: 3 * time.Second})
	s := verify(t, st, verifyOpts{want: e.f.want, parts: parts, noOrphans: true, needResult: true})
	checkChaosAccounted(t, st, s)
	if n.StaleBehind == 0 {
		t.Errorf("proxy %v: no listing served was behind the store", n)
	}
}

// TestBrokenStoreSoak (BLASTFLEET_SOAK=1): three partitions through a proxy
// with every fault at once, lost acknowledged writes and stale
// listings among them, seeded.
func TestBrokenStoreSoak(t *testing.T) {
	if !soak() {
		t.Skip("BLASTFLEET_SOAK=1 runs it")
	}
	e := newEnv(t)
	f := storeFaults
	f.LostWrite, f.StaleList, f.MaxStale = 0.05, 0.3, 3*time.Second
	var total faultproxy.Counts
	for _, seed := range seeds() {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			loc := "s3://campaigns/" + campaignName(t)
			st := e.plan(t, loc, 3)
			p, env := e.proxied(t, seed, f)
			if err := p.UseCredentials(e.minio.AccessKey, e.minio.SecretKey); err != nil {
				t.Fatal(err)
			}
			parts := []*partition{startPartition(t, loc, "A", 3, env), startPartition(t, loc, "B", 3, env), startPartition(t, loc, "C", 2, env)}
			for _, pt := range parts {
				pt.mustSucceed(t)
			}
			n := p.Counts()
			t.Logf("A %s, B %s, C %s; proxy: %v; lost %v", parts[0].elapsed(), parts[1].elapsed(), parts[2].elapsed(), n, n.LostWriteKeys)
			s := verify(t, st, verifyOpts{want: e.f.want, parts: parts, needResult: true})
			checkChaosAccounted(t, st, s)
			total.Requests += n.Requests
			total.LostWrites += n.LostWrites
			total.StaleLists += n.StaleLists
			total.StaleBehind += n.StaleBehind
			total.LostCut += n.LostCut
			total.Lost5xx += n.Lost5xx
		})
	}
	t.Logf("all seeds: %d requests, %d acknowledged writes lost, %d stale listings (%d behind), %d responses lost",
		total.Requests, total.LostWrites, total.StaleLists, total.StaleBehind, total.Lost())
	if total.LostWrites == 0 || total.StaleBehind == 0 {
		t.Errorf("the soak lost no write or served no listing behind the store")
	}
}

// runTwo plans a campaign in chunks of 3 queries and runs partitions A
// and B on it, both reaching MinIO through a proxy with f (which may ask
// the server about preconditions), until both exit 0.
func (e *env) runTwo(t *testing.T, seed uint64, f faultproxy.Faults) ([]*partition, objstore.Store, faultproxy.Counts) {
	t.Helper()
	loc := "s3://campaigns/" + campaignName(t)
	st := e.plan(t, loc, 3)
	p, env := e.proxied(t, seed, f)
	if err := p.UseCredentials(e.minio.AccessKey, e.minio.SecretKey); err != nil {
		t.Fatal(err)
	}
	a := startPartition(t, loc, "A", 3, env)
	b := startPartition(t, loc, "B", 3, env)
	a.mustSucceed(t)
	b.mustSucceed(t)
	n := p.Counts()
	t.Logf("A %s, B %s; proxy: %v", a.elapsed(), b.elapsed(), n)
	return []*partition{a, b}, st, n
}

// checkChaosAccounted: no attempt is on record as failed (what the store
// lost is no chunk's failure), and the assembled result's record is there
// and names the result's bytes.
func checkChaosAccounted(t *testing.T, st objstore.Store, s *ledger.Status) {
	t.Helper()
	t.Logf("%d chunks, %d attempts: %d committed, %d stopped, failed %+v", s.Chunks, s.Attempts, s.Committed, s.StoppedAttempts, s.FailedAttempts)
	if fa := s.FailedAttempts; fa.ExitCode+fa.Signal+fa.Error > 0 {
		t.Errorf("attempts recorded failed (%+v) where only the store misbehaved", fa)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	asm, err := l.AssembledResult(ctx)
	if err != nil || asm == nil || asm.SHA256 != sha256Hex(fix.want) {
		t.Errorf("assembled record %+v, %v: want one naming the result's SHA-256 %s", asm, err, sha256Hex(fix.want))
	}
}
