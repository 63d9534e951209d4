package ledger

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/objstore"
)

func TestChunking(t *testing.T) {
	got := ChunkByLetters([]int{5, 5, 5, 20, 1, 1}, 10)
	want := []Chunk{{0, 2, 10}, {2, 3, 5}, {3, 4, 20}, {4, 6, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ChunkByLetters = %v, want %v", got, want)
	}
	if got := ChunkByQueries(5, 2); !reflect.DeepEqual(got, []Chunk{{0, 2, 0}, {2, 4, 0}, {4, 5, 0}}) {
		t.Errorf("ChunkByQueries = %v", got)
	}
}

func TestPlan(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		p := testPlan(ChunkByQueries(10, 3))
		p.CreatedAt = time.Now()
		if err := WritePlan(ctx, st, p); err != nil {
			t.Fatal(err)
		}
		if p.Policy.MaxAttempts != DefaultMaxAttempts || p.Policy.LeaseSeconds != DefaultLeaseSeconds {
			t.Errorf("policy defaults not applied: %+v", p.Policy)
		}
		again := testPlan(ChunkByQueries(10, 3))
		again.CreatedAt = time.Now().Add(time.Hour)
		if err := WritePlan(ctx, st, again); err != nil {
			t.Errorf("writing the same plan again: %v", err)
		}
		other := testPlan(ChunkByQueries(10, 3))
		other.Queries.SHA256 = "cc"
		err := WritePlan(ctx, st, other)
		if err == nil || !strings.Contains(err.Error(), "already holds a different plan") || !strings.Contains(err.Error(), "queries.sha256") {
			t.Errorf("different plan: %v", err)
		}
		got, err := ReadPlan(ctx, st)
		if err != nil || got.Queries.SHA256 != "aa" || len(got.Chunks) != 4 {
			t.Errorf("ReadPlan = %+v, %v", got, err)
		}
		if err := WritePlan(ctx, fresh(), testPlan([]Chunk{{1, 3, 0}})); err == nil {
			t.Error("a plan whose chunks skip query 0 was accepted")
		}
	})
}
