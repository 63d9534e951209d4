package integration

import (
	"context"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
)

// TestDatabaseReplicasChangeOnceReady: a Ready database's replicas may be
// added, changed and removed, while the rest of its spec stays fixed.
func TestDatabaseReplicasChangeOnceReady(t *testing.T) {
	env := kubetest.Start(t)
	ctx, c := context.Background(), env.Client

	mustCreate(ctx, t, c, database("sprot").withReplica("east", "blastfleet-east", "databases").object())
	get := func() *v1alpha1.BlastDatabase { t.Helper(); return mustGetDatabase(ctx, t, c, "sprot") }
	db := get()
	db.Status = v1alpha1.BlastDatabaseStatus{
		Phase: v1alpha1.DatabaseReady, ObservedGeneration: db.Generation, Shards: 4,
		Location: "s3://blastfleet/databases/default/sprot", Build: "builds/1",
		Replicas: []v1alpha1.ReplicaStatus{{Name: "east", State: v1alpha1.ReplicaCopying,
			Location: "s3://blastfleet-east/databases/default/sprot", LastTransitionTime: ptr(metav1.Now())}},
		ReplicasReady: "0/1",
	}
	if err := c.Status().Update(ctx, db); err != nil {
		t.Fatalf("status update to Ready: %v", err)
	}

	for _, tc := range []struct {
		name   string
		change func(*v1alpha1.BlastDatabase)
		want   int
	}{
		{"adds a replica", func(db *v1alpha1.BlastDatabase) {
			db.Spec.Replicas = append(db.Spec.Replicas, v1alpha1.DatabaseReplica{Name: "west",
				Storage: v1alpha1.ObjectStorage{Bucket: "blastfleet-west", Prefix: "databases"}})
		}, 2},
		{"changes a replica's store", func(db *v1alpha1.BlastDatabase) { db.Spec.Replicas[1].Storage.Prefix = "copies" }, 2},
		{"removes a replica", func(db *v1alpha1.BlastDatabase) { db.Spec.Replicas = db.Spec.Replicas[:1] }, 1},
		{"removes every replica", func(db *v1alpha1.BlastDatabase) { db.Spec.Replicas = nil }, 0},
	} {
		t.Run("accepts/"+tc.name, func(t *testing.T) {
			db := get()
			tc.change(db)
			if err := c.Update(ctx, db); err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := len(get().Spec.Replicas); got != tc.want {
				t.Errorf("%d replicas after the update, want %d", got, tc.want)
			}
		})
	}

	const immutable = "spec is immutable once the database is Ready, but for spec.replicas"
	for _, tc := range []struct {
		name   string
		change func(*v1alpha1.BlastDatabase)
	}{
		{"storage with a replica added", func(db *v1alpha1.BlastDatabase) {
			db.Spec.Storage.Prefix = "elsewhere"
			db.Spec.Replicas = []v1alpha1.DatabaseReplica{{Name: "east", Storage: v1alpha1.ObjectStorage{Bucket: "blastfleet-east"}}}
		}},
		{"builder", func(db *v1alpha1.BlastDatabase) { db.Spec.Builder = v1alpha1.BuilderArgo }},
		{"serviceAccountName", func(db *v1alpha1.BlastDatabase) { db.Spec.ServiceAccountName = "other" }},
		{"sourceFormat", func(db *v1alpha1.BlastDatabase) { db.Spec.SourceFormat = v1alpha1.SourceBlastDB }},
		{"resources", func(db *v1alpha1.BlastDatabase) {
			db.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
		}},
	} {
		t.Run("refuses/"+tc.name, func(t *testing.T) {
			db := get()
			tc.change(db)
			expectInvalid(t, c.Update(ctx, db), immutable)
		})
	}
}

// TestDatabaseImmutabilityRuleNamesEveryField: the rule keeping a Ready
// database's spec fixed compares its fields one by one, so that replicas
// may change: a field added to the spec must be added to the rule (or be
// meant to change, as replicas).
func TestDatabaseImmutabilityRuleNamesEveryField(t *testing.T) {
	var rule string
	for _, r := range crdSchema(t, "blastfleet.io_blastdatabases.yaml").XValidations {
		if strings.HasPrefix(r.Message, "spec is immutable once the database is Ready") {
			rule = r.Rule
		}
	}
	if rule == "" {
		t.Fatal("the CRD has no immutability rule on the BlastDatabase")
	}
	mutable := map[string]bool{"replicas": true}
	spec := reflect.TypeFor[v1alpha1.BlastDatabaseSpec]()
	for i := range spec.NumField() {
		name, _, _ := strings.Cut(spec.Field(i).Tag.Get("json"), ",")
		if mutable[name] {
			if strings.Contains(rule, "spec."+name) {
				t.Errorf("the rule compares spec.%s, which may change", name)
			}
			continue
		}
		if !strings.Contains(rule, "self.spec."+name+" == oldSelf.spec."+name) &&
			!strings.Contains(rule, "self.spec."+name+".requests == oldSelf.spec."+name+".requests") {
			t.Errorf("the immutability rule does not compare spec.%s:\n%s", name, rule)
		}
	}
}
