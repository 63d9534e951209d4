package campaigncmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// TestCampaignAssemble: the command refuses an incomplete campaign,
// assembles a complete one into LOCATION/result with its record, and
// reports an assembled one again without redoing it.
func TestCampaignAssemble(t *testing.T) {
	loc, st := fakeCampaign(t)
	_, _, err := run(t, "blastfleet", "campaign", "assemble", loc)
	if err == nil || !strings.Contains(err.Error(), "is incomplete: missing query ranges [0,3) [3,5) [5,7)") {
		t.Errorf("incomplete: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(loc, ledger.ResultKey)); !os.IsNotExist(err) {
		t.Errorf("result written for an incomplete campaign: %v", err)
	}

	want := commitAll(t, st)
	sum := sha256.Sum256([]byte(want))
	stdout, stderr, err := run(t, "blastfleet", "campaign", "assemble", loc)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "assembled "+st.URL(ledger.ResultKey)) || !strings.Contains(stdout, hex.EncodeToString(sum[:])) {
		t.Errorf("stdout %q, want the result's location and SHA-256", stdout)
	}
	if got, err := os.ReadFile(filepath.Join(loc, ledger.ResultKey)); err != nil || string(got) != want {
		t.Errorf("result %q, %v; want %q", got, err, want)
	}
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	asm, err := l.AssembledResult(context.Background())
	if err != nil || asm == nil || asm.SHA256 != hex.EncodeToString(sum[:]) || asm.Size != int64(len(want)) {
		t.Errorf("assembled record %+v, %v", asm, err)
	}
	again, _, err := run(t, "blastfleet", "campaign", "assemble", loc)
	if err != nil || again != stdout {
		t.Errorf("second run: %q, %v; want %q", again, err, stdout)
	}
}
