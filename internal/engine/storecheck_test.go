package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// ignoresIfNoneMatch creates unconditionally, as a gateway that drops the
// header would.
type ignoresIfNoneMatch struct{ objstore.Store }

func (s ignoresIfNoneMatch) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	if err := s.Store.Put(ctx, key, strings.NewReader(string(data)), int64(len(data))); err != nil {
		return "", err
	}
	info, err := s.Store.Stat(ctx, key)
	return info.ETag, err
}

// TestPartitionRefusesUnsafeStore: a partition whose store (reached
// through a gateway that drops If-None-Match) cannot keep one commit per
// chunk refuses to start, before leasing anything.
func TestPartitionRefusesUnsafeStore(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2}
	db := f.shards(t, 1)
	loc, st := planCampaign(t, f, db, s, 10, 30)
	l, err := ledger.Open(context.Background(), ignoresIfNoneMatch{st}, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan := l.Plan()
	cfg := s.config(t, plan.Database.Location, plan.Queries.Location, loc)
	cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0"}
	_, err = engine.RunLocal(context.Background(), cfg, s.workers)
	if !errors.Is(err, ledger.ErrStoreUnsafe) {
		t.Fatalf("partition on a store ignoring If-None-Match: %v, want ErrStoreUnsafe", err)
	}
	status, serr := ledger.ReadStatus(context.Background(), st)
	if serr != nil || status.Attempts != 0 {
		t.Errorf("status %+v, %v: nothing may be leased", status, serr)
	}
}
