package replica

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

const testPiece = 64 << 10

func twoFakes(data []byte) (*fakeStore, *fakeStore) {
	objs := map[string][]byte{"obj": data}
	return newFake(objs), newFake(objs)
}

func newSet(opts Options, stores ...objstore.Store) *Set {
	var srcs []Source
	for i, st := range stores {
		srcs = append(srcs, Source{Name: string(rune('a' + i)), Store: st})
	}
	if opts.PieceSize == 0 {
		opts.PieceSize = testPiece
	}
	return New(srcs, opts)
}

// TestFetchBytes: every size comes back whole, each byte written once,
// small objects in one request.
func TestFetchBytes(t *testing.T) {
	for _, size := range []int{0, 1, testPiece - 1, testPiece, testPiece + 1, 7*testPiece + 3} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			data := randomBytes(size)
			a, b := twoFakes(data)
			s := newSet(Options{}, a, b)
			fetchAll(t, s, "obj", data)
			var pieces int64
			for _, st := range s.Stats() {
				pieces += st.Pieces
			}
			want := int64(max(1, (size+testPiece-1)/testPiece))
			if size <= testPiece {
				want = 1
			}
			if pieces != want {
				t.Errorf("%d pieces, want %d", pieces, want)
			}
		})
	}
}

// TestShareFollowsThroughput: a replica twice as fast reads about twice
// as many pieces; the slower one still reads its share and is not
// skipped.
func TestShareFollowsThroughput(t *testing.T) {
	data := randomBytes(60 * testPiece)
	a, b := twoFakes(data)
	a.bandwidth, b.bandwidth = 8<<20, 4<<20
	s := newSet(Options{}, a, b)
	fetchAll(t, s, "obj", data)
	st := byName(s)
	if st["a"].Pieces <= st["b"].Pieces || st["b"].Pieces < 10 {
		t.Errorf("pieces a %d, b %d: want a about twice b", st["a"].Pieces, st["b"].Pieces)
	}
	if st["b"].SkipCount != 0 {
		t.Errorf("a replica half as fast was skipped: %v", st["b"].Skips)
	}
	if st["a"].Busy <= 0 || st["a"].Throughput <= st["b"].Throughput {
		t.Errorf("stats %+v", st)
	}
}

// TestHotSpotSkippedThenProbed: a replica 20 times slower is skipped,
// logged, and after its cool-down one probe finds it well again.
func TestHotSpotSkippedThenProbed(t *testing.T) {
	data := randomBytes(40 * testPiece)
	a, b := twoFakes(data)
	a.bandwidth, b.bandwidth = 16<<20, 400<<10 // a piece in 4ms and 160ms
	var l logs
	s := newSet(Options{CoolDown: time.Second, Log: l.logger()}, a, b)
	took := fetchAll(t, s, "obj", data)
	st := byName(s)["b"]
	if st.SkipCount != 1 || !strings.Contains(st.Skips[0].Why, "skipped: throughput") || st.State != "skipped" {
		t.Fatalf("hot spot b: %+v, want one throughput skip", st)
	}
	if st.Pieces > 4 {
		t.Errorf("the hot spot read %d pieces", st.Pieces)
	}
	// Alone, b would take 40 pieces * 160ms; a alone about 160ms.
	if took > time.Second {
		t.Errorf("fetch took %s with a hot spot skipped", took)
	}
	if !l.has("replica skipped") {
		t.Errorf("no skip logged: %v", l.lines)
	}
	b.set(func(f *fakeStore) { f.bandwidth = 16 << 20 })
	time.Sleep(time.Second)
	if got := byName(s)["b"].State; got != "probing" {
		t.Errorf("after its cool-down b is %s, want probing", got)
	}
	fetchAll(t, s, "obj", data)
	after := byName(s)["b"]
	if after.State != "healthy" || after.Pieces <= st.Pieces+1 || !l.has("replica recovered") {
		t.Errorf("b after the probe: %+v, want healthy and reading again", after)
	}
}

// TestLatencyHotSpot: a replica slow to answer is skipped for latency.
func TestLatencyHotSpot(t *testing.T) {
	data := randomBytes(200 * 4 << 10)
	a, b := twoFakes(data)
	// a keeps the queue busy for about a second, so b's first pieces
	// finish rather than lose to hedges.
	a.latency, b.latency = 10*time.Millisecond, 400*time.Millisecond
	s := newSet(Options{PieceSize: 4 << 10}, a, b)
	fetchAll(t, s, "obj", data)
	if st := byName(s)["b"]; st.SkipCount != 1 || !strings.Contains(st.Skips[0].Why, "latency") {
		t.Errorf("b with 400ms latency: %+v, want a latency skip", st)
	}
}

// TestLastReplicaNotSkipped: alone, or beside a failed one, a slow
// replica keeps reading.
func TestLastReplicaNotSkipped(t *testing.T) {
	data := randomBytes(6 * testPiece)
	a, b := twoFakes(data)
	a.bandwidth = 1 << 20
	fetchAll(t, newSet(Options{}, a), "obj", data)

	b.fail = errors.New("disk on fire")
	s := newSet(Options{}, a, b)
	fetchAll(t, s, "obj", data)
	st := byName(s)
	if st["a"].SkipCount != 0 || st["a"].Pieces != 6 || st["b"].State != "failed" || st["b"].Errors == 0 {
		t.Errorf("stats %+v: want the slow replica to read everything, unskipped", st)
	}
}

// stalledFetch measures two equal replicas a and b, stalls b with stall,
// and fetches again, within limit.
func stalledFetch(t *testing.T, stall func(*fakeStore), limit time.Duration) *Set {
	t.Helper()
	data := randomBytes(8 * testPiece)
	a, b := twoFakes(data)
	a.bandwidth, b.bandwidth = 8<<20, 8<<20
	s := newSet(Options{}, a, b)
	fetchAll(t, s, "obj", data) // measures both
	b.set(stall)
	if took := fetchAll(t, s, "obj", data); took > limit {
		t.Errorf("fetch with b stalled took %s", took)
	}
	return s
}

// TestHedge: a piece stuck on one replica at the tail is read again from
// the other; the first to finish wins and the bytes are written once.
func TestHedge(t *testing.T) {
	st := byName(stalledFetch(t, func(f *fakeStore) { f.stallNext = 10 * time.Second }, 2*time.Second))
	if st["a"].HedgesWon != 1 || st["b"].HedgesLost != 1 {
		t.Errorf("stats %+v: want one hedge, won by a", st)
	}
	if st["b"].SkipCount != 0 {
		t.Errorf("one stalled piece skipped b: %v", st["b"].Skips)
	}
}

// TestLostHedgesSkip: a replica overtaken by hedges twice in a row is a
// hot spot, skipped with the reason, though it never finished a piece.
func TestLostHedgesSkip(t *testing.T) {
	// b answers nothing for 10 s: its pieces end only by being overtaken,
	// which gives it no sample of its own.
	st := byName(stalledFetch(t, func(f *fakeStore) { f.latency = 10 * time.Second }, 3*time.Second))["b"]
	if st.SkipCount != 1 || !strings.Contains(st.Skips[0].Why, "lost a hedged piece to a (2 slow pieces in a row)") {
		t.Errorf("b after two lost hedges: %d skips %v, want one for the lost hedges", st.SkipCount, st.Skips)
	}
}

// TestConcurrentFetches share each replica's requests in flight.
func TestConcurrentFetches(t *testing.T) {
	data := randomBytes(16 * testPiece)
	a, b := twoFakes(data)
	a.bandwidth, b.bandwidth = 8<<20, 8<<20
	s := newSet(Options{InFlight: 3}, a, b)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := fetchChecked(t, s, "obj", data); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if a.maxActive > 3 || b.maxActive > 3 {
		t.Errorf("requests in flight at once: a %d, b %d; want at most 3 each", a.maxActive, b.maxActive)
	}
	var pieces int64
	for _, st := range s.Stats() {
		pieces += st.Pieces
		if st.Busy <= 0 {
			t.Errorf("%s never busy", st.Name)
		}
	}
	if pieces != 4*16 {
		t.Errorf("%d pieces written, want %d", pieces, 4*16)
	}
}

// TestFailover: a replica failing every read, or lacking the object,
// costs no error; its pieces go to the other.
func TestFailover(t *testing.T) {
	data := randomBytes(10 * testPiece)
	for name, broken := range map[string]func(*fakeStore){
		"error":   func(f *fakeStore) { f.fail = errors.New("connection reset") },
		"missing": func(f *fakeStore) { f.data = nil },
	} {
		t.Run(name, func(t *testing.T) {
			a, b := twoFakes(data)
			broken(b)
			var l logs
			s := newSet(Options{Log: l.logger()}, a, b)
			fetchAll(t, s, "obj", data)
			st := byName(s)
			if st["b"].Errors == 0 || st["b"].State != "failed" || st["a"].Pieces != 10 || !l.has("replica failed") {
				t.Errorf("stats %+v: want b failed, a reading all", st)
			}
		})
	}
}

// TestAllFail: the error names every replica's failure.
func TestAllFail(t *testing.T) {
	data := randomBytes(3 * testPiece)
	a, b := twoFakes(data)
	a.fail = errors.New("boom-a")
	b.data = nil
	err := newSet(Options{}, a, b).Fetch(context.Background(), "obj", int64(len(data)), newOnceWriter(t, len(data)))
	if err == nil || !strings.Contains(err.Error(), "a: boom-a") || !strings.Contains(err.Error(), "b: fake://obj") ||
		!errors.Is(err, objstore.ErrNotExist) {
		t.Fatalf("Fetch with every replica failing: %v", err)
	}
}

// TestWithoutRanges: stores that cannot read ranges read whole objects;
// beside one that can, they step in only when it failed.
func TestWithoutRanges(t *testing.T) {
	data := randomBytes(5 * testPiece)
	a, b := twoFakes(data)
	s := newSet(Options{}, struct{ objstore.Store }{a}, struct{ objstore.Store }{b})
	fetchAll(t, s, "obj", data)
	if a.requests+b.requests != 1 {
		t.Errorf("%d requests for an object read whole", a.requests+b.requests)
	}

	a, b = twoFakes(data)
	b.fail = errors.New("ranged replica down")
	s = newSet(Options{}, struct{ objstore.Store }{a}, b)
	fetchAll(t, s, "obj", data)
	if st := byName(s); st["a"].Pieces != 5 {
		t.Errorf("stats %+v: want the rangeless replica to read every piece", st)
	}
}

// TestCancel: a cancelled fetch returns at once, its requests stopped.
func TestCancel(t *testing.T) {
	data := randomBytes(4 * testPiece)
	a, b := twoFakes(data)
	a.latency, b.latency = time.Hour, time.Hour
	s := newSet(Options{}, a, b)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Fetch(ctx, "obj", int64(len(data)), newOnceWriter(t, len(data)))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled Fetch: %v after %s", err, time.Since(start))
	}
	for _, st := range s.Stats() {
		if st.Errors != 0 || st.SkipCount != 0 {
			t.Errorf("a cancelled fetch counted against %s: %+v", st.Name, st)
		}
	}
}

// TestNoReplicas and a bad size are errors, not hangs.
func TestBadCalls(t *testing.T) {
	if err := New(nil, Options{}).Fetch(context.Background(), "k", 1, newOnceWriter(t, 1)); err == nil {
		t.Error("Fetch from no replicas succeeded")
	}
	a, _ := twoFakes(nil)
	if err := newSet(Options{}, a).Fetch(context.Background(), "obj", -1, newOnceWriter(t, 0)); err == nil {
		t.Error("Fetch of size -1 succeeded")
	}
}

// shardFiles are a shard's files as a worker's cache fetches them, one
// after another: small ones (one piece each, too small for a throughput
// sample) around a sequence file of two pieces.
func shardFiles() (map[string][]byte, []string) {
	objs := map[string][]byte{"nsq": randomBytes(DefaultPieceSize + DefaultPieceSize/3)}
	keys := []string{"ndb", "nhr", "nin", "nsq", "ntf", "ids"}
	for _, k := range keys {
		if objs[k] == nil {
			objs[k] = randomBytes(16 << 10)
		}
	}
	return objs, keys
}

// TestFreshSetFindsHotSpot: a worker starting cold reads a shard's files
// one at a time, and the first replica is a hot spot (CEFT-PVFS's
// stressed disk: 1/20 of the throughput, answers 130 ms late). The first
// file goes to it (nothing is known), the next to the replica not yet
// measured, which shows the first slow; the first replica's one piece of
// the sequence file is hedged, and it is skipped. Before, every small
// file went to the first replica while the other stayed unmeasured, and
// its piece of the sequence file waited for a blind hedge.
func TestFreshSetFindsHotSpot(t *testing.T) {
	objs, keys := shardFiles()
	a, b := newFake(objs), newFake(objs)
	a.latency, a.bandwidth = 130*time.Millisecond, 1<<20
	b.latency, b.bandwidth = 3*time.Millisecond, 20<<20
	s := New([]Source{{Name: "a", Store: a}, {Name: "b", Store: b}}, Options{})
	for _, k := range keys {
		fetchAll(t, s, k, objs[k])
	}
	st := byName(s)
	if st["a"].Pieces > 1 || st["a"].SkipCount != 1 || st["a"].State != "skipped" {
		t.Errorf("hot spot a: %d pieces written, %d skips, %s; want its first file only, then skipped (%s)",
			st["a"].Pieces, st["a"].SkipCount, st["a"].State, s)
	}
	if st["b"].Pieces < int64(len(keys)) {
		t.Errorf("b read %d pieces, want the rest (%s)", st["b"].Pieces, s)
	}
}

// TestFirstPieceJudgedLater: a piece that ended before any other replica
// had figures is judged by the next ones that come; equal replicas judge
// none slow.
func TestFirstPieceJudgedLater(t *testing.T) {
	objs, keys := shardFiles()
	for _, tc := range []struct {
		name string
		lat  time.Duration
		hot  int
	}{{"slow", 200 * time.Millisecond, 1}, {"equal", 3 * time.Millisecond, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := newFake(objs), newFake(objs)
			a.latency, b.latency = tc.lat, 3*time.Millisecond
			s := New([]Source{{Name: "a", Store: a}, {Name: "b", Store: b}}, Options{})
			fetchAll(t, s, keys[0], objs[keys[0]])
			if a.requests != 1 || b.requests != 0 || s.replicas[0].unjudged == nil {
				t.Fatalf("first file: %d requests to a, %d to b, unjudged %v; want a's piece waiting", a.requests, b.requests, s.replicas[0].unjudged)
			}
			fetchAll(t, s, keys[1], objs[keys[1]])
			if b.requests != 1 {
				t.Errorf("second file: %d requests to b, want the unmeasured replica to read it", b.requests)
			}
			if r := s.replicas[0]; r.unjudged != nil || r.hot != tc.hot {
				t.Errorf("a after b's figures: hot %d, unjudged %v; want hot %d", r.hot, r.unjudged, tc.hot)
			}
		})
	}
}
