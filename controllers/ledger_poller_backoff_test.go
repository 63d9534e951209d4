package controllers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/shared/jitter"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// refusingStore is a store that, once down, refuses every read at once
// (a store that is down, or keys it no longer takes), and counts them.
type refusingStore struct {
	objstore.Store
	down  atomic.Bool
	reads atomic.Int32
}

var errRefused = errors.New("connection refused")

func (s *refusingStore) refuse() error {
	s.reads.Add(1)
	if s.down.Load() {
		return errRefused
	}
	return nil
}

func (s *refusingStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := s.refuse(); err != nil {
		return nil, err
	}
	return s.Store.Get(ctx, key)
}

func (s *refusingStore) List(ctx context.Context, prefix string) ([]objstore.Info, error) {
	if err := s.refuse(); err != nil {
		return nil, err
	}
	return s.Store.List(ctx, prefix)
}

func (s *refusingStore) Stat(ctx context.Context, key string) (objstore.Info, error) {
	if err := s.refuse(); err != nil {
		return objstore.Info{}, err
	}
	return s.Store.Stat(ctx, key)
}

// refusingLedger is a planned store behind a refusingStore, and the
// ledger opened on it while it was up.
func refusingLedger(t *testing.T) (*refusingStore, *ledger.Ledger) {
	t.Helper()
	planned, _ := plannedStore(t)
	st := &refusingStore{Store: planned}
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st, l
}

// pollOnce has the (unstarted) poller make the reads that are due now,
// as Start would, and returns how many it made.
func pollOnce(p *ledgerPoller) int {
	due := p.takeDue()
	for _, e := range due {
		p.poll(context.Background(), e)
	}
	return len(due)
}

// stepClock is a clock tests move by hand.
type stepClock struct{ t time.Time }

func (c *stepClock) now() time.Time          { return c.t }
func (c *stepClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// within: d is want spread by at most jitter.Fraction.
func within(d, want time.Duration) bool {
	return d >= time.Duration(float64(want)*(1-jitter.Fraction)) && d <= time.Duration(float64(want)*(1+jitter.Fraction))
}

// TestPollerRetryAfter: a failed read is retried after 1 s, doubled per
// failure in a row, up to four poll intervals, spread by jitter; a
// poll interval under 1 s retries at most four intervals later.
func TestPollerRetryAfter(t *testing.T) {
	p := newLedgerPoller(15*time.Second, 1, time.Second)
	for n, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second,
		32 * time.Second, time.Minute, time.Minute, time.Minute} {
		if got := p.retryAfter(n + 1); !within(got, want) {
			t.Errorf("failure %d: retried after %v, want %v +-%.0f%%", n+1, got, want, jitter.Fraction*100)
		}
	}
	fast := newLedgerPoller(100*time.Millisecond, 1, time.Second)
	if got := fast.retryAfter(1); !within(got, 400*time.Millisecond) {
		t.Errorf("a 100 ms interval's first retry after %v, want 400 ms", got)
	}
	seen := map[time.Duration]bool{}
	for range 20 {
		seen[p.retryAfter(1)] = true
	}
	if len(seen) < 2 {
		t.Errorf("retries not spread: %v", seen)
	}
}

// TestLedgerPollerBacksOff: a campaign whose store fails is read again
// after its own backoff (1 s, then 2 s...), not an interval later; each
// failed read wakes it; the first read that succeeds goes back to the
// interval; and a handle opened anew (the reconcile's retry) keeps the
// failures in a row. The poller's reads are counted by outcome.
func TestLedgerPollerBacksOff(t *testing.T) {
	st, l := refusingLedger(t)
	clock := &stepClock{t: time.Unix(1e9, 0)}
	p := newLedgerPoller(time.Hour, 1, time.Second)
	p.now = clock.now
	p.read = func(ctx context.Context, l *ledger.Ledger, st objstore.Store) *ledgerRead {
		return readLedgerState(ctx, l, st, time.Minute)
	}
	ok0, err0 := testutil.ToFloat64(ledgerPollerReads.WithLabelValues(pollOK)), testutil.ToFloat64(ledgerPollerReads.WithLabelValues(pollError))
	st.down.Store(true)
	p.register("uid", pollKey, l, st)
	for n, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		if got := pollOnce(p); got != 1 {
			t.Fatalf("failure %d: %d reads due, want 1", n+1, got)
		}
		if got := nextWake(p, time.Second); got != "ns/c" {
			t.Errorf("failure %d woke %q, want ns/c", n+1, got)
		}
		e := p.entries["uid"]
		if e.failures != n+1 || !within(e.due.Sub(clock.t), want) {
			t.Fatalf("failure %d: %d failures, next read in %v, want %d, %v", n+1, e.failures, e.due.Sub(clock.t), n+1, want)
		}
		clock.advance(want / 2)
		if got := pollOnce(p); got != 0 {
			t.Fatalf("failure %d: read again half its backoff later", n+1)
		}
		clock.advance(want)
	}
	// The reconcile's retry opened a new handle, and failed too: the
	// backoff goes on from there.
	_, l2 := refusingLedger(t)
	p.put("uid", pollKey, l2, st, &ledgerRead{err: errRefused, retried: true})
	if e := p.entries["uid"]; e.failures != 4 || !within(e.due.Sub(clock.t), 8*time.Second) {
		t.Fatalf("after the reconcile's failed retry: %d failures, next read in %v, want 4, 8s", e.failures, e.due.Sub(clock.t))
	}
	st.down.Store(false)
	clock.advance(10 * time.Second)
	pollOnce(p)
	if got := nextWake(p, time.Second); got != "ns/c" {
		t.Errorf("the store's return woke %q, want ns/c", got)
	}
	if e := p.entries["uid"]; e.failures != 0 || e.last.err != nil || !within(e.due.Sub(clock.t), time.Hour) {
		t.Errorf("after a read that succeeded: %d failures, error %v, next read in %v, want 0, none, 1h", e.failures, e.last.err, e.due.Sub(clock.t))
	}
	if d := testutil.ToFloat64(ledgerPollerReads.WithLabelValues(pollError)) - err0; d != 3 {
		t.Errorf("%v failed reads counted, want 3", d)
	}
	if d := testutil.ToFloat64(ledgerPollerReads.WithLabelValues(pollOK)) - ok0; d != 1 {
		t.Errorf("%v good reads counted, want 1", d)
	}
}

// TestPollOutcome: a read that ran out of its deadline is a timeout,
// another failure an error.
func TestPollOutcome(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, pollOK},
		{errRefused, pollError},
		{context.DeadlineExceeded, pollTimeout},
		{&net408{}, pollTimeout},
	} {
		if got := pollOutcome(&ledgerRead{err: c.err}); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}

// net408 is a client's timeout as net/http reports one.
type net408 struct{}

func (*net408) Error() string { return "i/o timeout" }
func (*net408) Timeout() bool { return true }

// downReader is an API server that answers no read (a Secret's), and
// counts them.
type downReader struct{ gets atomic.Int32 }

func (r *downReader) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	r.gets.Add(1)
	return errors.New("the API server is restarting")
}

func (r *downReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("the API server is restarting")
}

// TestFailedPollRetriedOnce: after the poller's read of a campaign
// failed, the first reconcile opens the store again with credentials
// read anew and reads it (a rotated key would be picked up there); the
// reconciles woken after it, until the poller reads again, report the
// failed read (Degraded, LedgerUnreachable) and open nothing, also when
// the store could not be opened again (its Secret unreadable). The
// poller's next read starts a new window: one more retry.
func TestFailedPollRetriedOnce(t *testing.T) {
	var requests atomic.Int32 // the retries' requests to the store's endpoint
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied.</Message></Error>`)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		// secret: the output store's credentials are a Secret no
		// reconcile can read, so the retry cannot open the store.
		secret bool
	}{{"the store refuses", false}, {"the Secret cannot be read", true}} {
		t.Run(tc.name, func(t *testing.T) {
			st, l := refusingLedger(t)
			p := newLedgerPoller(time.Hour, 1, time.Second) // not started: pollOnce reads
			p.read = func(ctx context.Context, l *ledger.Ledger, st objstore.Store) *ledgerRead {
				return readLedgerState(ctx, l, st, time.Minute)
			}
			secrets := &downReader{}
			r := &CampaignReconciler{poller: p, Stores: StoreOpener{Secrets: secrets, Policy: policy.Policy{AllowInternalEndpoints: true}}}
			c := &v1alpha1.SearchCampaign{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "uid"},
				Status: v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignRunning}}
			c.Spec.Output = v1alpha1.ObjectStorage{Endpoint: srv.URL, Bucket: "results", Anonymous: !tc.secret}
			if tc.secret {
				c.Spec.Output.CredentialsSecretRef = &v1alpha1.CredentialsSecretRef{Name: "keys"}
			}
			p.register("uid", pollKey, l, st)
			st.down.Store(true)
			pollOnce(p)
			retries := func() float64 { return testutil.ToFloat64(campaignStoreReads.WithLabelValues(readPollerFailed)) }
			// work is what reconciles cost outside the operator: requests to
			// the store's endpoint, reads of the ledger's store, Secret reads.
			work := func() [3]int32 { return [3]int32{requests.Load(), st.reads.Load(), secrets.gets.Load()} }

			// reconcile is one woken reconcile's ledger step; it says whether
			// the campaign reports its store unreachable.
			reconcile := func() (storeFailed bool, degraded string) {
				t.Helper()
				run := newCampaignRun(r, c.DeepCopy())
				run.ledger, run.store = l, st
				if _, err := run.readLedger(context.Background()); err != nil {
					t.Fatalf("readLedger: %v", err)
				}
				if cond := meta.FindStatusCondition(run.c.Status.Conditions, v1alpha1.ConditionDegraded); cond != nil {
					degraded = cond.Reason
				}
				return run.storeFailed, degraded
			}
			for window := 1; window <= 2; window++ {
				before, start := retries(), work()
				if failed, _ := reconcile(); !failed {
					t.Errorf("window %d: the retry's failure is not reported", window)
				}
				if retried := work(); retried == start {
					t.Errorf("window %d: the first reconcile did not try the store again", window)
				}
				after := work()
				for wake := range 4 {
					if failed, degraded := reconcile(); !failed || degraded != "LedgerUnreachable" {
						t.Errorf("window %d, wake %d: store failure reported %t, Degraded %q, want true, LedgerUnreachable", window, wake+2, failed, degraded)
					}
				}
				if got := retries() - before; got != 1 {
					t.Errorf("window %d: 5 reconciles tried the store again %v times, want once", window, got)
				}
				if w := work(); w != after {
					t.Errorf("window %d: the reconciles after the retry reached the store or the API server: %v, then %v (requests, reads, Secret gets)", window, after, w)
				}
				// The poller's next read, when its backoff is up, fails too.
				p.entries["uid"].due = time.Time{}
				if pollOnce(p) != 1 {
					t.Fatal("the poller did not read again")
				}
			}
		})
	}
}
