package campaign_e2e

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// TestCampaignSAM: a SAM campaign (-outfmt 17) run by two partitions in
// chunks, each query searched alone (the fixture is one BLAST+ batch,
// which a chunk does not cut), gives blastn's SAM of the whole query file
// so searched (BATCH_SIZE=1) on the unsharded database, byte for byte,
// its header included (the queries with hits over every chunk, one @PG
// line naming the queries object by its file name): as blastfleet
// campaign results writes it and as the assembled result object holds it.
func TestCampaignSAM(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := datedReference(t, e)
	// The reference names its queries as the campaign's object is named.
	q, err := os.ReadFile(e.f.queries)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(ref), filepath.Base(e.qloc)), q, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("blastn", "-db", filepath.Base(ref), "-query", filepath.Base(e.qloc), "-outfmt", "17", "-max_target_seqs", "500")
	cmd.Dir, cmd.Env = filepath.Dir(ref), append(os.Environ(), "BATCH_SIZE=1", "BLAST_USAGE_REPORT=false")
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	if !bytes.HasPrefix(want, []byte("@HD\t")) {
		t.Fatalf("BLAST+'s SAM of the fixture has no header: %.200q", want)
	}
	loc := "s3://campaigns/" + campaignName(t)
	st := writePlan(t, loc, reportPlan(t, e, loc, "17", "", "alone"))
	s := runTwo(t, st, loc, nil)
	if s.Chunks < 2 {
		t.Fatalf("%d chunks: the header spans no chunks", s.Chunks)
	}
	out := filepath.Join(t.TempDir(), "out.sam")
	r := mustRunCLI(t, "campaign", "results", loc, "-o", out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the campaign's SAM differs from blastn's: %s\n%s", refsearch.Diff(got, want), r)
	}
	rc, err := st.Get(ctx, ledger.ResultKey)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if whole, err := io.ReadAll(rc); err != nil || !bytes.Equal(whole, want) {
		t.Fatalf("the assembled result differs from blastn's SAM (%v): %s", err, refsearch.Diff(whole, want))
	}

	// The operator's assembly Job (blastfleet campaign assemble, which
	// reads no queries and runs no BLAST) makes the same result, header
	// included, when no partition was left to assemble it.
	for _, k := range []string{"assembled.json", "result.header", ledger.ResultKey} {
		if err := st.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	mustRunCLI(t, "campaign", "assemble", loc)
	rc2, err := st.Get(ctx, ledger.ResultKey)
	if err != nil {
		t.Fatal(err)
	}
	defer rc2.Close()
	if whole, err := io.ReadAll(rc2); err != nil || !bytes.Equal(whole, want) {
		t.Fatalf("the result assembled by campaign assemble differs from blastn's SAM (%v): %s", err, refsearch.Diff(whole, want))
	}
	t.Logf("%d chunks, %d bytes of SAM, identical, assembled by a partition and by campaign assemble", s.Chunks, len(got))
}
