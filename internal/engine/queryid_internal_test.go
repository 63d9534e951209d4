package engine

import (
	"bytes"
	"context"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// BLAST+ 2.12 without -parse_deflines (which the engine refuses) prints a
// query's qseqid as the first word of its defline, verbatim: ">lcl|q1"
// prints "lcl|q1" (checked with blastn 2.12.0+). Only subject ids, from a
// database built with -parse_seqids, lose the "lcl|" prefix. The worker
// must match output lines to queries by the ids as written (it once used
// blast.NormalizeID, and a query file whose ids started with "lcl|" failed
// the run).
func TestBlastnLclQueryID(t *testing.T) {
	testenv.RequireTools(t, "blastn", "makeblastdb")
	ctx := context.Background()
	dir := t.TempDir()
	var db, q bytes.Buffer
	o := synth.Options{Seed: 3, Families: 4, Members: 4, MinLen: 300, MaxLen: 500, Mutation: 0.03, Queries: 3, QueryFrac: 0.6}
	if err := synth.Write(o, &db, &q); err != nil {
		t.Fatal(err)
	}
	fasta := filepath.Join(dir, "db.fa")
	if err := os.WriteFile(fasta, db.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	queries := filepath.Join(dir, "q.fa")
	if err := os.WriteFile(queries, []byte(strings.ReplaceAll(q.String(), ">", ">lcl|")), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := objstore.Open(ctx, filepath.Join(dir, "shards"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shard.Build(ctx, shard.Options{Input: fasta, Type: "nucl", Shards: 2, Output: st, Name: "lcl", WorkDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	format, err := blast.ParseFormat("6 std")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.tsv")
	cfg := &Config{Database: filepath.Join(dir, "shards"), Queries: queries, Output: out, Threads: 1,
		Spec:     search.Spec{Program: blast.Blastn, Format: format, MaxTargetSeqs: blast.DefaultMaxTargetSeqs, TopHits: merge.TopHits{Exact: true}},
		CacheDir: t.TempDir(), WriteBuffer: 4 << 20, Strategy: output.WorkerMerge{}, Log: testr.New(t)}
	if _, err := RunLocal(ctx, cfg, 2); err != nil {
		t.Fatalf("engine: %v", err)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(text), "lcl|") {
		t.Errorf("output does not start with a lcl| query id: %.80q", text)
	}
}
