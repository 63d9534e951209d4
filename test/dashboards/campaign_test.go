package dashboards

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// The campaign: 48 synthetic nucleotide queries in chunks of 2, searched
// by 2 partitions of a master and a worker rank, with a blastn that
// sleeps first, so it runs long enough for Prometheus (scraping every
// 5 s) to see every phase of every rank. The test does not wait for it
// to finish.
const (
	namespace = "default"
	dbName    = "dash-families"
	// replicaName is the database's replica, under another prefix of
	// the stack's bucket.
	replicaName = "second"
	campaign    = "dash-campaign"
	nQueries    = 48
	blastDelay  = "3"
)

// slowBlastPath is a PATH whose blastn sleeps blastDelay seconds first.
func slowBlastPath(t *testing.T) string {
	t.Helper()
	path, err := testenv.SlowBLASTPath(t.TempDir(), blastDelay)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// uploadData puts the synthetic database and queries into the stack's
// bucket.
func (s *stack) uploadData(t *testing.T) {
	t.Helper()
	var db, q bytes.Buffer
	if err := synth.Write(synth.Options{Seed: 23, Families: 12, Members: 6, MinLen: 300, MaxLen: 700, Mutation: 0.04,
		Queries: nQueries, QueryFrac: 0.6, Unrelated: 20}, &db, &q); err != nil {
		t.Fatal(err)
	}
	st, err := s.state.Store("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for key, data := range map[string][]byte{"dash/db.fa": db.Bytes(), "dash/queries.fa": q.Bytes()} {
		if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatalf("uploading %s: %v", key, err)
		}
	}
}

func (s *stack) storage(prefix string) string {
	return fmt.Sprintf("    endpoint: %s\n    bucket: %s\n    prefix: %s\n    credentialsSecretRef:\n      name: %s",
		s.state.MinIO.Endpoint, s.state.MinIO.Bucket, prefix, devstack.SecretName)
}

// create decodes a manifest into obj and creates it.
func (s *stack) create(t *testing.T, manifest string, obj client.Object) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(manifest), obj); err != nil {
		t.Fatalf("%v\n%s", err, manifest)
	}
	if err := s.c.Create(context.Background(), obj); err != nil {
		t.Fatalf("creating %s: %v", obj.GetName(), err)
	}
}

// database creates the BlastDatabase (3 shards) with a replica under
// another prefix, and waits until it is Ready and its replica copied: the
// campaign's workers then read every shard from both stores, so the
// per-store panels (blastfleet_engine_store_*) have series.
func (s *stack) database(t *testing.T) {
	t.Helper()
	s.create(t, fmt.Sprintf(`apiVersion: blastfleet.io/v1alpha1
kind: BlastDatabase
metadata:
  name: %s
  namespace: %s
spec:
  source:
    key: dash/db.fa
  type: nucl
  shards:
    count: 3
  storage:
%s
  replicas:
  - name: %s
    storage:
%s
`, dbName, namespace, s.storage("dash-databases"), replicaName, indent(s.storage("dash-replicas"), "  ")), &v1alpha1.BlastDatabase{})
	var db v1alpha1.BlastDatabase
	s.waitFor(t, 2*time.Minute, "BlastDatabase "+dbName+" Ready, its replica copied", func() (bool, string) {
		if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: dbName}, &db); err != nil {
			return false, err.Error()
		}
		if db.Status.Phase == v1alpha1.DatabaseFailed {
			t.Fatalf("BlastDatabase %s Failed: %+v", dbName, db.Status.Conditions)
		}
		var replica v1alpha1.ReplicaStatus
		for _, r := range db.Status.Replicas {
			if r.Name == replicaName {
				replica = r
			}
		}
		if replica.State == v1alpha1.ReplicaFailed {
			t.Fatalf("BlastDatabase %s: replica %s Failed: %s", dbName, replicaName, replica.Message)
		}
		return db.Status.Phase == v1alpha1.DatabaseReady && replica.State == v1alpha1.ReplicaReady,
			fmt.Sprintf("%s, replica %s %s %s", db.Status.Phase, replicaName, replica.State, replica.Message)
	})
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// startCampaign creates the campaign and waits until it is Running.
func (s *stack) startCampaign(t *testing.T) {
	t.Helper()
	s.create(t, fmt.Sprintf(`apiVersion: blastfleet.io/v1alpha1
kind: SearchCampaign
metadata:
  name: %s
  namespace: %s
spec:
  databaseRef:
    name: %s
  queries:
    key: dash/queries.fa
  program: blastn
  outfmt: "6 std"
  chunking:
    queries: 2
  # Each query alone: many small chunks keep the campaign running while
  # every panel is checked (in BLAST+'s batches these queries are one
  # chunk, done in seconds).
  batching: alone
  partitions:
    count: 2
    workers: 2
    slotsPerWorker: 1
  output:
%s
`, campaign, namespace, dbName, s.storage("dash-campaigns")), &v1alpha1.SearchCampaign{})
	s.waitFor(t, 90*time.Second, "campaign "+campaign+" Running", func() (bool, string) {
		c := s.campaign(t)
		if c.Status.Phase == v1alpha1.CampaignFailed {
			t.Fatalf("campaign %s Failed: %+v", campaign, c.Status.Conditions)
		}
		return c.Status.Phase == v1alpha1.CampaignRunning && c.Status.Partitions.Running > 0,
			fmt.Sprintf("%s, partitions %+v", c.Status.Phase, c.Status.Partitions)
	})
}

func (s *stack) campaign(t *testing.T) *v1alpha1.SearchCampaign {
	t.Helper()
	var c v1alpha1.SearchCampaign
	if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: campaign}, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// waitFor polls cond until it holds or the timeout passes.
func (s *stack) waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	testenv.Eventually(t, what, timeout, 250*time.Millisecond, cond)
}
