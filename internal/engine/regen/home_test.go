package regen_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastvol"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/engine/regen"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/cache"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// TestHomeInBatches: metadata lines of queries searched in BLAST+ batches
// (-task blastn, 2 batches, data where a query's hits depend on its
// batch: test/engine's TestReportsInBatches) are regenerated at home
// batch by batch into BLAST+'s report of the whole file in its batches;
// lines without batches (each query alone) give another.
func TestHomeInBatches(t *testing.T) {
	for _, tool := range []string{"blastn", "makeblastdb", "blastdbcmd", "blastdb_aliastool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("BLAST+ not installed")
		}
	}
	ctx := context.Background()
	dir := t.TempDir()
	data := synth.BatchingSensitive()
	data.Seed, data.Queries, data.LongQueries = 1, 28, 10 // two batches of blastn's 50,000 letters
	var dbFA, qFA bytes.Buffer
	if err := synth.Write(data, &dbFA, &qFA); err != nil {
		t.Fatal(err)
	}
	fa, queries := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	for p, b := range map[string][]byte{fa: dbFA.Bytes(), queries: qFA.Bytes()} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := objstore.Open(ctx, filepath.Join(dir, "sharded"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := shard.Build(ctx, shard.Options{Input: fa, Type: manifest.Nucleotide, Shards: 3, Output: st, Name: "famdb", WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	files, err := m.Files(st)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.New(filepath.Join(dir, "cache"), 0, files, m)
	if err != nil {
		t.Fatal(err)
	}
	// Where each subject is: its ordinal and shard, by id.
	type place struct {
		ordinal int64
		shard   int
	}
	where := map[string]place{}
	for i, s := range m.Shards {
		if _, err := c.Acquire(ctx, i); err != nil {
			t.Fatal(err)
		}
		ids, err := regen.ReadIDs(filepath.Join(c.Dir(), s.IDsFile))
		c.Release(i)
		if err != nil {
			t.Fatal(err)
		}
		for o, id := range ids {
			where[id[0]] = place{o, i}
		}
	}
	ref, err := refsearch.MakeNamedDB(ctx, fa, "nucl", dir, "famdb")
	if err != nil {
		t.Fatal(err)
	}
	if err := blastvol.SetDate(ref+".nin", regen.DatabaseDate(m.Shards)); err != nil {
		t.Fatal(err)
	}
	args := []string{"-max_target_seqs", "500", "-task", "blastn"}
	want, err := refsearch.ReportBatches(ctx, "blastn", ref, queries, "0", args...)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := refsearch.SearchBatches(ctx, "blastn", ref, queries, "6 qseqid sacc", args...)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := fasta.ReadAll(bytes.NewReader(qFA.Bytes()), "q.fa", fasta.Nucleotide)
	if err != nil {
		t.Fatal(err)
	}
	// Each query's metadata line, as a partition commits it.
	b := blast.BatchLetters(blast.Blastn, []blast.Option{{Name: "task", Value: "blastn"}}, blast.BatchingBLAST)
	lengths := make([]int, len(recs))
	for i, r := range recs {
		lengths[i] = len(r.Seq)
	}
	ends := blast.BatchEnds(lengths, b)
	if len(ends) < 2 {
		t.Fatalf("%d batches of %d letters, want several", len(ends), b)
	}
	subjects := map[string][]regen.MetaSubject{}
	for _, l := range strings.Split(strings.TrimSpace(string(tab)), "\n") {
		q, s, _ := strings.Cut(l, "\t")
		p, ok := where[s]
		if !ok {
			t.Fatalf("subject %q in no shard", s)
		}
		if !slices.Contains(subjects[q], regen.MetaSubject{Ordinal: p.ordinal, Shard: p.shard}) {
			subjects[q] = append(subjects[q], regen.MetaSubject{Ordinal: p.ordinal, Shard: p.shard})
		}
	}
	var lines, alone []byte
	start := 0
	for i, r := range recs {
		if i == ends[0] {
			start, ends = ends[0], ends[1:]
		}
		ss := subjects[r.ID]
		slices.SortFunc(ss, func(a, b regen.MetaSubject) int { return int(a.Ordinal - b.Ordinal) })
		lines = regen.Metadata{Index: i + 1, Query: r.ID, Subjects: ss, Batch: start + 1}.Append(lines)
		alone = regen.Metadata{Index: i + 1, Query: r.ID, Subjects: ss}.Append(alone)
	}
	f, err := blast.ParseFormat("0")
	if err != nil {
		t.Fatal(err)
	}
	h := &regen.Home{DB: m, Cache: c, Total: len(recs),
		Search: regen.Search{Program: blast.Blastn, Format: f, MaxTargetSeqs: 500, Options: []blast.Option{{Name: "task", Value: "blastn"}}, BatchLetters: b},
		Query: func(i int) ([]byte, error) {
			var buf bytes.Buffer
			err := fasta.Write(&buf, recs[i-1])
			return buf.Bytes(), err
		}}
	var got bytes.Buffer
	n, err := h.Write(ctx, bytes.NewReader(lines), &got)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(recs) {
		t.Fatalf("%d queries written, want %d", n, len(recs))
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("regenerated at home: %s", refsearch.Diff(got.Bytes(), want))
	}
	// The same lines without their batches: each query alone, another
	// report on these data.
	got.Reset()
	if _, err := h.Write(ctx, bytes.NewReader(alone), &got); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got.Bytes(), want) {
		t.Fatal("the queries regenerated alone give the batches' report: the data do not tell them apart")
	}
}
