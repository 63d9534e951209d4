package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// TestSummary: a partition's summary holds the status a listing gives; a
// poller reads it while it is fresh and gets nil once it is older than
// its limit (no partition writes it), of another plan, or absent; an
// earlier listing never replaces a later one.
func TestSummary(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		clk := newClock()
		l := campaign(t, st, ChunkByQueries(6, 2), Options{Now: clk.Now})
		reader := open(t, st, Options{Now: clk.Now})
		if s, err := reader.ReadSummary(ctx, time.Minute); err != nil || s != nil {
			t.Fatalf("no summary written: %+v, %v; want nil", s, err)
		}

		ls := acquire(t, l, "p")
		if err := commit(t, ls); err != nil {
			t.Fatal(err)
		}
		acquire(t, l, "p")
		want, err := l.WriteSummary(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		if want.Committed != 1 || want.Leased != 1 || want.Pending != 1 {
			t.Fatalf("status %+v", want)
		}
		clk.Advance(30 * time.Second)
		got, err := reader.ReadSummary(ctx, time.Minute)
		if err != nil || got == nil {
			t.Fatalf("fresh summary: %+v, %v", got, err)
		}
		listed, err := reader.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !sameStatus(got.Status, listed) || got.Writer != "p" || got.ETag == "" {
			t.Errorf("summary %+v (by %s), listing %+v", got.Status, got.Writer, listed)
		}

		// A write from an earlier listing (a slower writer) is dropped.
		old := summaryRecord{Taken: clk.Now().Add(-time.Hour), Writer: "slow", PlanETag: l.planETag, Status: &Status{Name: "stale"}}
		if err := l.putSummary(ctx, old); err != nil {
			t.Fatal(err)
		}
		if got, _ := reader.ReadSummary(ctx, time.Minute); got == nil || got.Writer != "p" {
			t.Errorf("an earlier listing replaced a later one: %+v", got)
		}

		// Stale past the limit plus the plan's clock skew.
		clk.Advance(time.Minute)
		if got, err := reader.ReadSummary(ctx, time.Minute); err != nil || got == nil {
			t.Errorf("within the skew: %+v, %v", got, err)
		}
		clk.Advance(time.Duration(DefaultSkewSeconds) * time.Second)
		if got, err := reader.ReadSummary(ctx, time.Minute); err != nil || got != nil {
			t.Errorf("stale summary read: %+v, %v", got, err)
		}

		// Another plan's summary (the location reused) is not this one's.
		other := summaryRecord{Taken: clk.Now(), Writer: "q", PlanETag: "another", Status: &Status{Name: "other"}}
		data, _ := json.Marshal(other)
		if err := st.Put(ctx, SummaryKey, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		if got, err := reader.ReadSummary(ctx, time.Minute); err != nil || got != nil {
			t.Errorf("another plan's summary read: %+v, %v", got, err)
		}
		// ... and is replaced by this plan's next write.
		if _, err := l.WriteSummary(ctx, "p"); err != nil {
			t.Fatal(err)
		}
		if got, err := reader.ReadSummary(ctx, time.Minute); err != nil || got == nil || got.Writer != "p" {
			t.Errorf("after a write over another plan's: %+v, %v", got, err)
		}
	})
}

// TestSummaryConcurrentWriters: partitions writing at once lose no
// write to a race: the summary ends holding the latest listing's status.
func TestSummaryConcurrentWriters(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := campaign(t, st, ChunkByQueries(8, 2), Options{})
		drain(t, l, "p", never)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := open(t, st, Options{})
				if _, err := w.WriteSummary(ctx, string(rune('a'+i))); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		got, err := l.ReadSummary(ctx, time.Minute)
		if err != nil || got == nil || !got.Status.Complete || got.Status.Committed != 4 {
			t.Fatalf("summary after concurrent writers: %+v, %v", got, err)
		}
	})
}

// sameStatus compares statuses through JSON, as they are stored.
func sameStatus(a, b *Status) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var x, y any
	_ = json.Unmarshal(ja, &x)
	_ = json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}

// TestSummaryFresh: a summary any writer took less than the age ago is
// fresh; older, absent or another plan's is not.
func TestSummaryFresh(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		clk := newClock()
		l := campaign(t, st, ChunkByQueries(6, 2), Options{Now: clk.Now})
		other := open(t, st, Options{Now: clk.Now})
		if ok, err := other.SummaryFresh(ctx, 30*time.Second); err != nil || ok {
			t.Fatalf("no summary: fresh %v, %v", ok, err)
		}
		if _, err := l.WriteSummary(ctx, "p"); err != nil {
			t.Fatal(err)
		}
		clk.Advance(29 * time.Second)
		if ok, err := other.SummaryFresh(ctx, 30*time.Second); err != nil || !ok {
			t.Errorf("another writer's summary 29 s old: fresh %v, %v", ok, err)
		}
		clk.Advance(time.Second)
		if ok, err := other.SummaryFresh(ctx, 30*time.Second); err != nil || ok {
			t.Errorf("30 s old: fresh %v, %v", ok, err)
		}
		rec := summaryRecord{Taken: clk.Now(), Writer: "q", PlanETag: "another", Status: &Status{Name: "other"}}
		data, _ := json.Marshal(rec)
		if err := st.Put(ctx, SummaryKey, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		if ok, err := other.SummaryFresh(ctx, 30*time.Second); err != nil || ok {
			t.Errorf("another plan's summary: fresh %v, %v", ok, err)
		}
	})
}
