package simulate

import (
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

// smallConfig is a database and query set small enough for fast tests but
// with several shards, multi-HSP subjects and tied E-values.
func smallConfig() Config {
	c := DefaultConfig()
	c.Seed = 42
	c.QueryCount = 9
	c.QuerySizes = MustHistogram("30-200:0.5,200-3000:0.5")
	c.Subjects = 600
	c.SubjectSizes = MustHistogram("40-400:0.5,400-5000:0.5")
	c.Shards = 6
	c.Results = MustHistogram("20-80:1")
	return c
}

func newModel(t *testing.T, c Config) (*Model, []Query) {
	t.Helper()
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return m, m.Queries()
}

func format(t *testing.T, outfmt string) *blast.Format {
	t.Helper()
	f, err := blast.ParseFormat(outfmt)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// task is a block of queries [first, end) against a shard group.
type task struct {
	first, end int
	shards     []int
}

// runGrouping searches every task and merges them per query as the
// engine's master does, returning the merged output's bytes.
func runGrouping(t *testing.T, m *Model, qs []Query, tasks []task, f *blast.Format, o, shardOpts merge.Options) []byte {
	t.Helper()
	hits := make([][]merge.Hit, len(qs))
	var texts [][][]byte
	for ti, tk := range tasks {
		res, err := m.Search(tk.first, qs[tk.first:tk.end], tk.shards, f, shardOpts)
		if err != nil {
			t.Fatalf("task %+v: %v", tk, err)
		}
		var lines [][]byte
		for i, r := range res.Records {
			q := tk.first + r.Query
			hits[q] = append(hits[q], merge.Hit{Evalue: r.Evalue, Bitscore: r.Bitscore, Score: r.Score,
				SLen: r.SLen, Ordinal: r.Ordinal, Size: len(r.Text), Source: ti, Index: i})
			lines = append(lines, r.Text)
		}
		texts = append(texts, lines)
	}
	var out []byte
	for q := range qs {
		for _, h := range merge.Merge(hits[q], o) {
			out = append(out, texts[h.Source][h.Index]...)
		}
	}
	return out
}

// blocks cuts [0, n) at the given points.
func blocks(n int, cuts ...int) [][2]int {
	var out [][2]int
	prev := 0
	for _, c := range append(cuts, n) {
		out = append(out, [2]int{prev, c})
		prev = c
	}
	return out
}

// cross pairs every block with every shard group.
func cross(bs [][2]int, groups [][]int) []task {
	var ts []task
	for _, b := range bs {
		for _, g := range groups {
			ts = append(ts, task{b[0], b[1], g})
		}
	}
	return ts
}

func allShards(m *Model) []int {
	s := make([]int, m.Database().Shards())
	for i := range s {
		s[i] = i
	}
	return s
}
