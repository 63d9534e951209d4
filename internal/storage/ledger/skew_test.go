package ledger

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// skewed is a clock offset from a shared one: machines whose clocks
// disagree, while time passes alike for all.
func skewed(base *clock, by time.Duration) func() time.Time {
	return func() time.Time { return base.Now().Add(by) }
}

// TestLeaseExpiryIgnoresClockSkew: a holder and a taker whose clocks are
// an hour apart, either way. While the holder renews, the taker never
// takes its lease; once it stops renewing (it died), the taker takes the
// chunk over within lease + skew + one renewal of the last renewal.
func TestLeaseExpiryIgnoresClockSkew(t *testing.T) {
	pol := Policy{MaxAttempts: 3, LeaseSeconds: 30, RenewSeconds: 6, SkewSeconds: 2}
	limit := pol.Lease() + pol.Skew() + pol.Renew()
	for _, c := range []struct {
		name          string
		holder, taker time.Duration
	}{
		{"taker-an-hour-ahead", -time.Hour, time.Hour},
		{"taker-an-hour-behind", time.Hour, -time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := objstore.NewDir(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			base := newClock()
			h := planWithPolicy(t, st, []Chunk{{0, 2, 0}}, pol, Options{Now: skewed(base, c.holder)})
			tk := open(t, st, Options{Now: skewed(base, c.taker)})
			ls := acquire(t, h, "holder")
			step := time.Second
			// Ten leases' worth of time, renewed on schedule: never taken.
			for elapsed := time.Duration(0); elapsed < 10*pol.Lease(); elapsed += step {
				if elapsed%pol.Renew() == 0 {
					if err := ls.Renew(ctx); err != nil {
						t.Fatalf("renewal at %s: %v", elapsed, err)
					}
				}
				if got, err := tk.Acquire(ctx, "taker"); !errors.Is(err, ErrAllLeased) {
					t.Fatalf("%s after the lease was taken, while it is renewed: Acquire = %v, %v; want ErrAllLeased", elapsed, got, err)
				}
				base.Advance(step)
			}
			// The holder dies now, just after a renewal at most one
			// renewal interval ago.
			died := base.Now()
			var taken time.Duration
			for {
				got, err := tk.Acquire(ctx, "taker")
				if err == nil {
					if got.Range != (Range{0, 2}) || got.Attempt != 2 {
						t.Fatalf("took %s attempt %d", got.Range, got.Attempt)
					}
					taken = base.Now().Sub(died)
					break
				}
				if !errors.Is(err, ErrAllLeased) {
					t.Fatal(err)
				}
				if base.Now().Sub(died) > 2*limit {
					t.Fatalf("a dead holder's lease not taken over %s after its death", base.Now().Sub(died))
				}
				base.Advance(step)
			}
			if taken > limit {
				t.Errorf("taken over %s after the holder's death, want within lease + skew + renewal = %s", taken, limit)
			}
			if err := ls.Renew(ctx); !errors.Is(err, ErrLeaseLost) {
				t.Errorf("the old holder's Renew after the takeover = %v, want ErrLeaseLost", err)
			}
			t.Logf("taken over %s after the holder's death (limit %s)", taken, limit)
		})
	}
}
