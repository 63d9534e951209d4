package operator

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestPrebuiltDatabaseEndToEnd: a BlastDatabase whose source is a prebuilt
// BLAST database in the bucket, packed as NCBI packs it (volume archives
// with .md5 files, metadata, taxdb.tar.gz), sharded by its Job, then a
// campaign with the taxonomy columns and a taxid filter (inline, then a
// long list object), searched by two
// MPIJob partitions: all through the API server and the operator, run by
// the local runner. The result must equal blastp on the original database.
func TestPrebuiltDatabaseEndToEnd(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb", "blastdbcmd", "blastp", "mpirun")
	bins := testenv.BuiltBinaries(t)
	h := newHarness(t)
	ctx := context.Background()
	dir := t.TempDir()

	src, err := blastdbtest.Build(filepath.Join(dir, "src"), blastdbtest.Options{Name: "fictnr", Protein: true, VolumeMax: 3000,
		Synth: synth.Options{Seed: 8, Families: 8, Members: 6, MinLen: 150, MaxLen: 300, Mutation: 0.15, Queries: 8, QueryFrac: 0.6, Unrelated: 6, Duplicates: 3}})
	if err != nil {
		t.Fatal(err)
	}
	st := h.store("")
	ents, err := os.ReadDir(src.Packed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src.Packed, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Put(ctx, "ncbi/blast/db/"+e.Name(), bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	queries, err := os.ReadFile(src.Queries)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, "queries/tax.fa", bytes.NewReader(queries), int64(len(queries))); err != nil {
		t.Fatal(err)
	}

	runner, err := localrunner.New(localrunner.Options{WorkDir: filepath.Join(dir, "runner"), Engine: bins.Engine, CLI: bins.CLI,
		Env: testenv.MPIEnv, RetryBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Start(h.env.Config); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runner.Stop)

	h.create(&v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "fictnr", Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "ncbi/blast/db/fictnr"}, SourceFormat: v1alpha1.SourceBlastDB,
			Type: v1alpha1.DatabaseProtein, Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)}, Storage: h.output("databases")},
	})
	var bdb v1alpha1.BlastDatabase
	h.eventually("database Ready", 2*time.Minute, func() (bool, string) {
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "fictnr"}, &bdb); err != nil {
			return false, err.Error()
		}
		if bdb.Status.Phase == v1alpha1.DatabaseFailed {
			t.Fatalf("database Failed: %s", conditionsOf(bdb.Status.Conditions))
		}
		return bdb.Status.Phase == v1alpha1.DatabaseReady, string(bdb.Status.Phase) + " " + conditionsOf(bdb.Status.Conditions)
	})
	if bdb.Status.Shards != 2 || bdb.Status.Sequences != 8*6+6 || bdb.Status.Build == "" {
		t.Errorf("database status %+v", bdb.Status)
	}
	var job batchv1.Job
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "fictnr-shards"}, &job); err != nil || ptr.Deref(job.Spec.CompletionMode, "") == batchv1.IndexedCompletion {
		t.Errorf("sharding Job: %v, completion mode %v (one pod copies the volumes)", err, job.Spec.CompletionMode)
	}

	const outfmt = "6 qseqid sseqid evalue bitscore staxid ssciname scomname sblastname sskingdom staxids stitle"
	c := h.campaign("tax", "fictnr", 2)
	c.Spec.Outfmt = outfmt
	c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "taxids", Value: "9001,9004"}}
	h.create(c)
	h.waitPhase("tax", v1alpha1.CampaignComplete, 4*time.Minute)
	var got bytes.Buffer
	if err := h.ledgerOf("tax").StreamResults(ctx, &got); err != nil {
		t.Fatal(err)
	}
	// Only now: the partitions must have found the taxdb they shipped.
	t.Setenv("BLASTDB", src.Original)
	want, err := refsearch.SearchBatches(ctx, "blastp", src.Path(), src.Queries, outfmt, "-max_target_seqs", "500", "-taxids", "9001,9004")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte("Fictus primus")) || !bytes.Contains(want, []byte("Archaeum falsum")) {
		t.Fatalf("the reference lacks the filtered taxa's names: %s", want)
	}
	t.Logf("result: %d lines, reference: %d lines", bytes.Count(got.Bytes(), []byte("\n")), bytes.Count(want, []byte("\n")))
	if d := refsearch.Diff(got.Bytes(), want); d != "" {
		t.Errorf("campaign result differs from blastp -taxids on the original database: %s", d)
	}

	// A taxid list kept as an object (spec.taxidList, where submit puts
	// -negative_taxidlist=FILE): 20,000 taxids the database lacks beside
	// three it has, more than one argument to BLAST may hold. The result
	// is blastp's with the same file.
	ids := []string{"9002", "9003"}
	for i := range 20000 {
		ids = append(ids, strconv.Itoa(2000000+i))
	}
	ids = append(ids, "9999")
	list := []byte(strings.Join(ids, "\n") + "\n")
	listFile := filepath.Join(dir, "taxa.txt")
	if err := os.WriteFile(listFile, list, 0o644); err != nil {
		t.Fatal(err)
	}
	for key, data := range map[string][]byte{"lists/taxa.txt": list, "queries/taxlist.fa": queries} {
		if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	c = h.campaign("taxlist", "fictnr", 2)
	c.Spec.Outfmt = outfmt
	c.Spec.TaxidList = &v1alpha1.TaxidList{ObjectReference: v1alpha1.ObjectReference{Key: "lists/taxa.txt"}, Negative: true}
	h.create(c)
	h.waitPhase("taxlist", v1alpha1.CampaignComplete, 4*time.Minute)
	got.Reset()
	if err := h.ledgerOf("taxlist").StreamResults(ctx, &got); err != nil {
		t.Fatal(err)
	}
	want, err = refsearch.SearchBatches(ctx, "blastp", src.Path(), src.Queries, outfmt, "-max_target_seqs", "500", "-negative_taxidlist", listFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || bytes.Contains(want, []byte("Fictus secundus")) {
		t.Fatalf("the reference is empty or kept a listed taxon: %s", want)
	}
	if d := refsearch.Diff(got.Bytes(), want); d != "" {
		t.Errorf("campaign result differs from blastp -negative_taxidlist FILE on the original database: %s", d)
	}

	// A sequence id list kept as an object (spec.seqidList, where submit
	// puts -seqidlist=FILE): every third accession, of both shards, and
	// one the database lacks. E-values are those of the listed
	// sequences alone, as blastp's with the same file.
	out, err := exec.Command("blastdbcmd", "-db", src.Path(), "-entry", "all", "-outfmt", "%a").Output()
	if err != nil {
		t.Fatal(err)
	}
	accs := strings.Fields(string(out))
	var listed []string
	for i := 0; i < len(accs); i += 3 {
		listed = append(listed, accs[i])
	}
	seqids := []byte(strings.Join(append(listed, "XX_999999.1"), "\n") + "\n")
	seqidFile := filepath.Join(dir, "seqids.txt")
	if err := os.WriteFile(seqidFile, seqids, 0o644); err != nil {
		t.Fatal(err)
	}
	for key, data := range map[string][]byte{"lists/seqids.txt": seqids, "queries/seqids.fa": queries} {
		if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	c = h.campaign("seqids", "fictnr", 2)
	c.Spec.Outfmt = outfmt
	c.Spec.SeqidList = &v1alpha1.SeqidList{ObjectReference: v1alpha1.ObjectReference{Key: "lists/seqids.txt"}}
	h.create(c)
	h.waitPhase("seqids", v1alpha1.CampaignComplete, 4*time.Minute)
	got.Reset()
	if err := h.ledgerOf("seqids").StreamResults(ctx, &got); err != nil {
		t.Fatal(err)
	}
	want, err = refsearch.SearchBatches(ctx, "blastp", src.Path(), src.Queries, outfmt, "-max_target_seqs", "500", "-seqidlist", seqidFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("the -seqidlist reference is empty")
	}
	if d := refsearch.Diff(got.Bytes(), want); d != "" {
		t.Errorf("campaign result differs from blastp -seqidlist FILE on the original database: %s", d)
	}
}
