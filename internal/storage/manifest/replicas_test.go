package manifest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

func dirStore(t *testing.T) objstore.Store {
	t.Helper()
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func versioned() *Manifest {
	m := sample()
	m.Build = "builds/b1"
	return m
}

// A replica counts only with the very build: same id, files, sizes and
// hashes; anything else is refused naming the replica and the difference.
func TestCheckReplica(t *testing.T) {
	ctx := context.Background()
	primary := versioned()
	for _, tc := range []struct {
		name   string
		mutate func(*Manifest) // the replica's copy; nil: none saved
		want   string
	}{
		{"same build", func(*Manifest) {}, ""},
		{"missing", nil, "lacks build builds/b1"},
		{"other build", func(m *Manifest) { m.Build = "builds/b2" }, "lacks build builds/b1"},
		{"other sha", func(m *Manifest) { m.Shards[1].Files[0].SHA256 = "other" },
			"differs from build builds/b1: shard shard-001: file shard-001.pal has SHA-256 other, the primary's z"},
		{"other size", func(m *Manifest) { m.Shards[0].Files[1].Size = 6; m.Shards[0].Letters = 15 },
			"file shard-000.db.pin has 6 bytes, the primary's 5"},
		{"missing file", func(m *Manifest) { m.Shards[0].Files = m.Shards[0].Files[:1] },
			"shard shard-000: 1 files, the primary's 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := dirStore(t)
			if tc.mutate != nil {
				m := versioned()
				tc.mutate(m)
				if err := Save(ctx, st, m); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckReplica(ctx, primary, st)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrReplica) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), st.URL("")) {
				t.Fatalf("got %v, want ErrReplica naming %s and %q", err, st.URL(""), tc.want)
			}
		})
	}
	if err := CheckReplica(ctx, sample(), dirStore(t)); err == nil || !strings.Contains(err.Error(), "not versioned") {
		t.Errorf("unversioned build: %v", err)
	}
}

// AddReplicas records new locations once, in manifest.json only, and
// refuses when manifest.json names another build.
func TestAddReplicas(t *testing.T) {
	ctx := context.Background()
	st := dirStore(t)
	if err := Save(ctx, st, versioned()); err != nil {
		t.Fatal(err)
	}
	build, _, err := st.GetBytes(ctx, versioned().Key())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AddReplicas(ctx, st, "builds/b1", "s3://r1/db", "/data/r2"); err != nil {
		t.Fatal(err)
	}
	if _, err := AddReplicas(ctx, st, "builds/b1", "/data/r2", "s3://r3/db"); err != nil {
		t.Fatal(err)
	}
	m, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.ReplicaLocations(), " "); got != "s3://r1/db /data/r2 s3://r3/db" {
		t.Errorf("replicas %q", got)
	}
	if after, _, _ := st.GetBytes(ctx, versioned().Key()); string(after) != string(build) {
		t.Error("the build's own copy changed: pinned campaigns would refuse it")
	}
	if _, err := AddReplicas(ctx, st, "builds/b0", "s3://r4/db"); !errors.Is(err, ErrOtherBuild) {
		t.Errorf("other build: %v", err)
	}
	m.Replicas = append(m.Replicas, Replica{Location: "s3://r1/db"})
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("duplicate replica: %v", err)
	}
}
