package campaigncmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// The status table has a line per site, with its rate once it has one.
func TestStatusTableSites(t *testing.T) {
	var b bytes.Buffer
	printStatusTable(&b, "s3://c/x", &ledger.Status{Name: "x", Chunks: 4, Queries: 8, Sites: []ledger.SiteStatus{
		{Name: "cloud", ChunksCommitted: 1, QueriesDone: 2, Running: 1, LettersPerSecond: 1530},
		{Name: "hpc-a", Running: 2},
	}})
	for _, want := range []string{
		"site      cloud: 2 queries in 1 chunks committed, 1 chunks running, 1.5 k letters/s\n",
		"site      hpc-a: 0 queries in 0 chunks committed, 2 chunks running\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}
