package operator

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestEndToEnd runs the real thing through the operator: a BlastDatabase
// sharded by an Indexed Job and a manifest Job, a campaign planned by its
// Job and searched by two MPIJob partitions running blastfleet-engine
// under mpirun, all executed by the local runner. The result must equal
// blastp of the unsharded database.
func TestEndToEnd(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h, dir := newRunningHarness(t)
	ctx := context.Background()

	// Data: a synthetic protein set with real hits.
	db, queries := h.proteinDatabase("e2e", synth.Options{Seed: 7, Families: 12, Members: 6, MinLen: 80, MaxLen: 200, Queries: 9, Unrelated: 20}, 3)
	var bdb v1alpha1.BlastDatabase
	h.eventually("database Ready", 2*time.Minute, func() (bool, string) {
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "e2e"}, &bdb); err != nil {
			return false, err.Error()
		}
		return bdb.Status.Phase == v1alpha1.DatabaseReady, string(bdb.Status.Phase) + " " + conditionsOf(bdb.Status.Conditions)
	})
	if bdb.Status.Shards != 3 || bdb.Status.Sequences != 12*6+20 || bdb.Status.BlastVersion == "" {
		t.Errorf("database status %+v", bdb.Status)
	}
	var shards batchv1.Job
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "e2e-shards"}, &shards); err != nil || ptr.Deref(shards.Spec.Completions, 0) != 3 ||
		ptr.Deref(shards.Spec.CompletionMode, "") != batchv1.IndexedCompletion || shards.Status.CompletedIndexes != "0-2" {
		t.Errorf("sharding Job: %v, completions %v, completed %q", err, shards.Spec.Completions, shards.Status.CompletedIndexes)
	}

	c := h.campaign("e2e", "e2e", 2)
	c.Spec.Chunking = v1alpha1.Chunking{Queries: ptr.To[int32](2)}
	h.create(c)
	done := h.waitPhase("e2e", v1alpha1.CampaignComplete, 4*time.Minute)
	// Chunks are whole BLAST+ batches: the 9 queries are one blastp batch
	// of 10,000 letters, so one chunk, however small the chunking asks.
	if done.Status.Queries.Done != 9 || done.Status.Chunks.Committed != 1 {
		t.Errorf("status %+v", done.Status)
	}
	// What it cost: 2 worker slots for the partition's wall time, from its
	// run record; the one site has all of it.
	if cs := done.Status.CoreSeconds; cs == nil || *cs <= 0 || done.Status.QueryLetters <= 0 ||
		len(done.Status.Sites) != 1 || done.Status.Sites[0].CoreSeconds != *cs {
		t.Errorf("cost: coreSeconds %v, queryLetters %d, sites %+v", cs, done.Status.QueryLetters, done.Status.Sites)
	}

	// The result equals blastp of the unsharded database.
	h.checkAgainstBlastp("e2e", dir, db, queries)
}

// newRunningHarness is a harness whose Jobs and MPIJobs the local runner
// executes on this machine (real BLAST+, MPI and engine) until the test
// ends, with a scratch directory.
func newRunningHarness(t *testing.T) (*harness, string) {
	t.Helper()
	testenv.RequireTools(t, "makeblastdb", "blastp", "mpirun")
	h := newHarness(t)
	return h, h.runLocally()
}

// runLocally starts the local runner for h and returns a scratch
// directory.
func (h *harness) runLocally() string {
	h.t.Helper()
	testenv.RequireTools(h.t, "makeblastdb", "blastp", "mpirun")
	dir := h.t.TempDir()
	h.startRunner(testenv.BuiltBinaries(h.t), dir)
	return dir
}

// proteinDatabase puts a synthetic protein set with real hits in the
// store, fasta/NAME.fa and queries/NAME.fa, and creates the BlastDatabase
// NAME of it in shards.
func (h *harness) proteinDatabase(name string, o synth.Options, shards int32) (db, queries []byte) {
	h.t.Helper()
	db, queries = synthProteins(h.t, o)
	for key, data := range map[string][]byte{"fasta/" + name + ".fa": db, "queries/" + name + ".fa": queries} {
		if err := h.store("").Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
			h.t.Fatal(err)
		}
	}
	h.create(&v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/" + name + ".fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To(shards)}, Storage: h.output("databases")},
	})
	return db, queries
}

// synthProteins is a synthetic protein database and queries with real
// hits (mutated family members).
func synthProteins(t testing.TB, o synth.Options) (db, queries []byte) {
	t.Helper()
	o.Protein, o.Mutation, o.QueryFrac = true, 0.25, 0.8
	var d, q bytes.Buffer
	if err := synth.Write(o, &d, &q); err != nil {
		t.Fatal(err)
	}
	return d.Bytes(), q.Bytes()
}

// startRunner runs the cluster's Jobs and MPIJobs on this machine until
// the test ends.
func (h *harness) startRunner(bins testenv.Binaries, dir string) {
	h.t.Helper()
	runner, err := localrunner.New(localrunner.Options{WorkDir: filepath.Join(dir, "runner"), Engine: bins.Engine, CLI: bins.CLI,
		Env: testenv.MPIEnv, RetryBackoff: 200 * time.Millisecond})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := runner.Start(h.env.Config); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(runner.Stop)
}

// checkAgainstBlastp compares campaign's result with blastp, given
// blastArgs too, of each query alone on the unsharded protein database:
// with one shard group (the default), byte for byte, tie order included.
func (h *harness) checkAgainstBlastp(campaign, dir string, db, queries []byte, blastArgs ...string) {
	t := h.t
	t.Helper()
	ctx := context.Background()
	var got bytes.Buffer
	if err := h.ledgerOf(campaign).StreamResults(ctx, &got); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"db.fa": db, "q.fa": queries} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ref, err := refsearch.MakeDB(ctx, filepath.Join(dir, "db.fa"), "prot", filepath.Join(dir, "ref"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := refsearch.SearchBatches(ctx, "blastp", ref, filepath.Join(dir, "q.fa"), "6", append([]string{"-max_target_seqs", "500"}, blastArgs...)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("the reference search found no hits: the data has none to compare")
	}
	t.Logf("result: %d lines, reference: %d lines", bytes.Count(got.Bytes(), []byte("\n")), bytes.Count(want, []byte("\n")))
	if d := refsearch.Diff(got.Bytes(), want); d != "" {
		t.Errorf("campaign result differs from blastp of the query file on the unsharded database: %s", d)
	}
}
