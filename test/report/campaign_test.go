package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// poison is the query every partition fails on (the engine's
// BLASTFLEET_FAIL_QUERIES hook), so the report has failures to show;
// poisonIndex is its place in the queries file.
const (
	poison      = "query0004"
	poisonIndex = 4
)

// partitions run the campaign side by side, as two Slurm jobs would.
var partitions = []string{"site-a", "site-b"}

// realCampaign plans a small blastn campaign into a directory with the
// built CLI, runs it to completion with two engine partitions of two
// workers each, and returns the campaign's directory.
func realCampaign(ctx context.Context, t *testing.T, bins testenv.Binaries) string {
	t.Helper()
	dir := t.TempDir()
	var db, q bytes.Buffer
	if err := synth.Write(synth.Options{Seed: 11, Families: 12, Members: 6, MinLen: 300, MaxLen: 900, Mutation: 0.04,
		Queries: 24, QueryFrac: 0.6, Unrelated: 20}, &db, &q); err != nil {
		t.Fatal(err)
	}
	dbFasta, queries := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	for path, data := range map[string][]byte{dbFasta: db.Bytes(), queries: q.Bytes()} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shards, campaign := filepath.Join(dir, "shards"), filepath.Join(dir, "synthetic-blastn")
	run(ctx, t, nil, bins.CLI, "db", "shard", "--input", dbFasta, "--type", "nucl", "--shards", "3",
		"--output", shards, "--work-dir", t.TempDir())
	run(ctx, t, nil, bins.CLI, "campaign", "plan", "--queries", queries, "--database", shards, "--program", "blastn",
		"--outfmt", "6 std", "--chunk-queries", "3", "--max-attempts", "2", "--output", campaign)

	var wg sync.WaitGroup
	for _, id := range partitions {
		wg.Go(func() {
			// Small blocks and one shard per task: many tasks, a timeline
			// worth looking at.
			run(ctx, t, []string{engine.FailQueriesEnv + "=" + poison}, bins.Engine, "--campaign", campaign, "--partition-id", id,
				"--workers", "2", "--cache-dir", filepath.Join(dir, "cache-"+id), "--block-letters", "600", "--group-bytes", "1")
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return campaign
}

// run runs a built program to completion and fails the test (from any
// goroutine) on an error, with its output.
func run(ctx context.Context, t *testing.T, env []string, argv ...string) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, tail(out, 4000))
	}
}

func tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("...%s", b[len(b)-n:])
}
