package campaigncmd

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The search given whole (--search-json, as the operator's planning Job
// gives it) plans what the same search given as flags plans, and is
// checked as the flags are.
func TestCampaignPlanSearchJSON(t *testing.T) {
	f := newCampaignFixture(t)
	db := filepath.Join(f.dir, "db")
	f.shardTo(t, db)
	plan := func(out string, search ...string) error {
		args := append([]string{"campaign", "plan", "--queries", f.queries, "--database", db, "--chunk-queries", "3",
			"--output", filepath.Join(f.dir, out)}, search...)
		_, _, err := run(t, "blastfleet", args...)
		return err
	}
	if err := plan("flags", "--program", "blastn", "--outfmt", "6 qseqid sseqid evalue bitscore", "--evalue", "1e-5",
		"--blast-option=-dust=20 64 1", "--blast-option=-ungapped", "--max-target-seqs", "20"); err != nil {
		t.Fatal(err)
	}
	byFlags := readPlanAt(t, filepath.Join(f.dir, "flags"))
	js, err := json.Marshal(byFlags.Search)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan("json", "--search-json", string(js)); err != nil {
		t.Fatal(err)
	}
	byJSON := readPlanAt(t, filepath.Join(f.dir, "json"))
	if !reflect.DeepEqual(byJSON.Search, byFlags.Search) || !reflect.DeepEqual(byJSON.Chunks, byFlags.Chunks) {
		t.Errorf("--search-json planned %+v, the flags %+v", byJSON.Search, byFlags.Search)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--search-json", string(js), "--program", "blastn"}, "search-json"},
		{[]string{"--search-json", `{"program":"blastp","outfmt":{"code":17},"maxTargetSeqs":5,"topHits":"auto","batching":"blast"}`},
			"--search-json: --outfmt 17 (SAM): BLAST+ prints SAM for blastn only"},
		{[]string{"--search-json", strings.Replace(string(js), `"dust"`, `"out"`, 1)}, "--search-json: search.options[0]: -out is not allowed"},
		{nil, "[program search-json]"},
	} {
		if err := plan("refused", tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
