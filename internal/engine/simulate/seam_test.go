package simulate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

// A task's records are what the engine's worker makes of real BLAST
// output: blast.Parse of the printed lines, each with its query within the
// block and its subject's ordinal.
func TestRecordsAreParsedBLASTOutput(t *testing.T) {
	m, qs := newModel(t, smallConfig())
	f := format(t, "6 qseqid sseqid pident evalue")
	res, err := m.Search(2, qs[2:6], []int{1, 3}, f, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines, err := blast.Parse(res.Output, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(res.Records) || len(lines) == 0 {
		t.Fatalf("%d parsed lines, %d records", len(lines), len(res.Records))
	}
	// The engine asks BLAST for the merge's columns after the user's.
	if got := strings.Count(strings.SplitN(string(res.Output), "\n", 2)[0], "\t") + 1; got != len(f.Request) {
		t.Fatalf("first output line has %d columns, the format requests %d", got, len(f.Request))
	}
	prevQuery := 0
	for i, r := range res.Records {
		l := lines[i]
		if r.Query < prevQuery {
			t.Fatalf("record %d: query %d after query %d: not in block order", i, r.Query, prevQuery)
		}
		prevQuery = r.Query
		switch {
		case r.Line.Query != l.Query || r.Subject != l.Subject || r.Evalue != l.Evalue ||
			r.Score != l.Score || r.SLen != l.SLen || !bytes.Equal(r.Text, l.Text):
			t.Fatalf("record %d %+v differs from its parsed line %+v", i, r.Line, l)
		case l.Query != qs[2+r.Query].ID:
			t.Fatalf("record %d: qseqid %q, its query index %d is %q", i, l.Query, r.Query, qs[2+r.Query].ID)
		case l.Subject != SubjectID(r.Ordinal) || int(l.SLen) != m.Database().Length(r.Ordinal):
			t.Fatalf("record %d: subject %q length %d, ordinal %d is %q of length %d", i, l.Subject, l.SLen,
				r.Ordinal, SubjectID(r.Ordinal), m.Database().Length(r.Ordinal))
		case r.Ordinal%6 != 1 && r.Ordinal%6 != 3:
			t.Fatalf("record %d: subject ordinal %d is in neither shard 1 nor 3", i, r.Ordinal)
		case strings.Count(string(l.Text), "\t") != 3:
			t.Fatalf("record %d: text %q does not hold just the user's 4 columns", i, l.Text)
		}
	}
}

// Every task's lines are already in the merge's order: merging one task
// alone changes nothing.
func TestTaskOutputIsInMergeOrder(t *testing.T) {
	m, qs := newModel(t, smallConfig())
	f := format(t, "6 std")
	for _, lengthDependent := range []bool{false, true} {
		o := merge.Options{LengthDependentEvalues: lengthDependent}
		res, err := m.Search(0, qs, []int{0, 2, 5}, f, o)
		if err != nil {
			t.Fatal(err)
		}
		perQuery := map[int][]merge.Hit{}
		for i, r := range res.Records {
			perQuery[r.Query] = append(perQuery[r.Query], merge.Hit{Evalue: r.Evalue, Score: r.Score,
				SLen: r.SLen, Ordinal: r.Ordinal, Index: i})
		}
		for q, hits := range perQuery {
			for i, h := range merge.Merge(hits, o) {
				if h.Index != hits[i].Index {
					t.Fatalf("length-dependent %v, query %d: merge moved line %d to position %d", lengthDependent, q, h.Index, i)
				}
			}
		}
	}
}

func TestCheckFormat(t *testing.T) {
	if err := CheckFormat(format(t, "6 std qlen qcovhsp ppos")); err != nil {
		t.Fatalf("std columns: %v", err)
	}
	err := CheckFormat(format(t, "6 qseqid sseq"))
	if err == nil || !strings.Contains(err.Error(), `"sseq"`) {
		t.Fatalf("sseq: got %v, want an error naming the column", err)
	}
	m, qs := newModel(t, smallConfig())
	if _, err := m.Search(0, qs, []int{0}, format(t, "6 staxids"), merge.Options{}); err == nil {
		t.Fatal("Search accepted a column it cannot produce")
	}
}

func TestSearchRejectsBadTasks(t *testing.T) {
	m, qs := newModel(t, smallConfig())
	f := format(t, "6 std")
	for name, call := range map[string]func() error{
		"shard out of range": func() error { _, err := m.Search(0, qs, []int{6}, f, merge.Options{}); return err },
		"shard twice":        func() error { _, err := m.Search(0, qs, []int{1, 1}, f, merge.Options{}); return err },
		"negative first":     func() error { _, err := m.Compute(-1, qs, []int{0}); return err },
		"empty query":        func() error { _, err := m.Compute(0, []Query{{ID: "x"}}, []int{0}); return err },
		"tab in id":          func() error { _, err := m.Compute(0, []Query{{ID: "a\tb", Len: 5}}, []int{0}); return err },
		"negative cut-off":   func() error { _, err := m.Search(0, qs, []int{0}, f, merge.Options{MaxTargetSeqs: -1}); return err },
	} {
		if call() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
