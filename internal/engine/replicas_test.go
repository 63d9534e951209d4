package engine_test

import (
	"context"
	"fmt"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// A search given --database-replica checks each replica at every worker's
// start and logs which it accepted and which it refused; the search
// itself is unchanged.
func TestSearchLogsReplicas(t *testing.T) {
	f := synthFixture(t, synth.Options{Seed: 3, Families: 4, Members: 4, MinLen: 300, MaxLen: 500, Mutation: 0.04, Queries: 4, QueryFrac: 0.6})
	ctx := context.Background()
	db := f.shards(t, 2)
	good, missing := filepath.Join(f.dir, "replica"), filepath.Join(f.dir, "missing")
	primary, err := objstore.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := objstore.Open(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(ctx, primary)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dbcopy.Copy(ctx, primary, rep, m.Build, dbcopy.Options{}); err != nil {
		t.Fatal(err)
	}
	s := search{program: blast.Blastn, outfmt: "6", workers: 1}
	cfg := s.config(t, db, f.queries, filepath.Join(f.dir, "out.tsv"))
	cfg.DatabaseReplicas = []string{good, missing}
	var mu sync.Mutex
	var logs strings.Builder
	cfg.Log = funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(&logs, prefix, args)
	}, funcr.Options{})
	sum, err := engine.RunLocal(ctx, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The worker read its shards through the primary and the accepted
	// replica, and says so in its summary.
	for _, rk := range sum.Ranks {
		if rk.Role != "worker" {
			continue
		}
		var read int64
		var stores []string
		for _, st := range rk.Stores {
			read += st.Bytes
			stores = append(stores, st.Store)
		}
		if want := []string{db, good}; !slices.Equal(stores, want) || read != rk.BytesFetched || read == 0 {
			t.Errorf("rank %d read %d bytes from %v, fetched %d: want every byte from %v", rk.Rank, read, stores, rk.BytesFetched, want)
		}
	}
	got, err := os.ReadFile(cfg.Output)
	if err != nil {
		t.Fatal(err)
	}
	if d := refsearch.Diff(got, s.reference(t, f, false)); d != "" {
		t.Errorf("output read through replicas differs from BLAST+'s: %s", d)
	}
	for _, want := range []string{`"msg"="database replica accepted" "replica"="` + good + `" "number"=1`,
		`"msg"="database replica refused" "reason"="replica 2 ` + missing} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %s:\n%s", want, logs.String())
		}
	}
}
