package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// fakeRefusingBLAST puts first on PATH a blastn of the given version that
// refuses every search with an argument error, as a BLAST+ refuses an
// option it does not know.
func fakeRefusingBLAST(t *testing.T, version string) {
	t.Helper()
	testenv.FakeBLAST(t, "if [ \"$1\" = -version ]; then echo 'blastn: "+version+"'; echo ' Package: blast'; exit 0; fi\n"+
		"echo 'Error: Argument \"word_size\". Illegal value, expected >=4' >&2\nexit 1")
}

// TestOlderSiteBLASTFailsOnlyItsPartition: a site whose BLAST+ is older
// than the one that built the database refuses the search. That may be
// its own BLAST+ (an option newer than it): its partition fails, its
// chunk is recorded stopped (no attempt used), and the campaign is not
// marked invalid for the other sites, as it was (issue 30, finding 10).
// The same refusal by a BLAST+ as new as the database's still marks the
// search invalid everywhere.
func TestOlderSiteBLASTFailsOnlyItsPartition(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2}
	db := f.shards(t, 1) // built by this machine's BLAST+
	built, err := blast.Version(context.Background(), "blastn")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("older", func(t *testing.T) {
		loc, st := planCampaign(t, f, db, s, 8, 30)
		fakeRefusingBLAST(t, "2.2.0+")
		_, err := partition(t, s, loc, st, "old-site")
		if err == nil || errors.Is(err, ledger.ErrInvalidSearch) || !strings.Contains(err.Error(), "older than "+built) {
			t.Fatalf("partition at a site with BLAST+ 2.2.0+: %v, want it to fail saying its BLAST+ is older than %s", err, built)
		}
		status, err := ledger.ReadStatus(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("status %+v", status)
		if status.Invalid != nil {
			t.Errorf("an older site's refusal marked the campaign invalid for every site: %+v", status.Invalid)
		}
		if fa := status.FailedAttempts; fa.ExitCode+fa.Error+fa.Signal+fa.Abandoned > 0 || status.StoppedAttempts == 0 || status.Failed > 0 {
			t.Errorf("status %+v: want the partition's chunks recorded stopped, none failed", status)
		}
	})
	t.Run("as new", func(t *testing.T) {
		loc, st := planCampaign(t, f, db, s, 8, 30)
		fakeRefusingBLAST(t, built)
		if _, err := partition(t, s, loc, st, "site"); !errors.Is(err, ledger.ErrInvalidSearch) {
			t.Fatalf("partition whose BLAST+ %s refuses the search: %v, want ErrInvalidSearch", built, err)
		}
		status, err := ledger.ReadStatus(context.Background(), st)
		if err != nil || status.Invalid == nil || !status.Invalid.Config {
			t.Fatalf("status %+v, %v: want the search marked invalid", status, err)
		}
	})
}
