package simulate

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

// The merged output must not depend on how queries are cut into blocks or
// shards into groups (and so on the number of ranks), with or without the
// cut-offs a shard group's BLAST call applies.
func TestMergedOutputIndependentOfGrouping(t *testing.T) {
	m, qs := newModel(t, smallConfig())
	n := len(qs)
	groupings := map[string][]task{
		"one task":                    cross(blocks(n), [][]int{allShards(m)}),
		"uneven blocks, three groups": cross(blocks(n, 3, 7), [][]int{{0, 1}, {2, 3, 4}, {5}}),
		"pairs, unordered groups":     cross(blocks(n, 2, 4, 6, 8), [][]int{{5, 0}, {3}, {1, 4, 2}}),
		"one query, one shard":        cross(blocks(n, 1, 2, 3, 4, 5, 6, 7, 8), [][]int{{0}, {1}, {2}, {3}, {4}, {5}}),
	}
	cases := []struct {
		name string
		o    merge.Options
	}{
		{"untruncated", merge.Options{}},
		{"max_target_seqs 5", merge.Options{MaxTargetSeqs: 5}},
		{"evalue 1e-20", merge.Options{Evalue: 1e-20}},
		{"length-dependent E-values, top 7", merge.Options{MaxTargetSeqs: 7, LengthDependentEvalues: true}},
	}
	for _, outfmt := range []string{"6 std", "6 qseqid sseqid evalue", "6 qaccver qlen sacc slen pident length nident positive ppos gaps gapopen mismatch qstart qend sstart send qcovhsp evalue bitscore score"} {
		f := format(t, outfmt)
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%s", outfmt, c.name), func(t *testing.T) {
				// The one-task search's own output is the reference: a
				// single BLAST call over the whole database.
				whole, err := m.Search(0, qs, allShards(m), f, c.o)
				if err != nil {
					t.Fatal(err)
				}
				if len(whole.Records) == 0 {
					t.Fatal("no hits at all")
				}
				var ref []byte
				for _, r := range whole.Records {
					ref = append(ref, r.Text...)
				}
				for name, tasks := range groupings {
					got := runGrouping(t, m, qs, tasks, f, c.o, c.o)
					if !bytes.Equal(got, ref) {
						t.Errorf("%s: merged output (%d bytes) differs from one search's (%d bytes)\n%s", name, len(got), len(ref), firstDiff(got, ref))
					}
				}
			})
		}
	}
}

// The records of one query are the same whether it is searched alone or
// inside a block, and its hits in one shard the same whether that shard is
// searched alone or inside a group.
func TestRecordsOfAQueryIndependentOfBlockAndGroup(t *testing.T) {
	m, qs := newModel(t, smallConfig())
	f := format(t, "6 std")
	all := allShards(m)
	block, err := m.Search(0, qs, all, f, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const q = 4
	alone, err := m.Search(q, qs[q:q+1], all, f, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var inBlock []string
	for _, r := range block.Records {
		if r.Query == q {
			inBlock = append(inBlock, string(r.Text))
		}
	}
	var single []string
	for _, r := range alone.Records {
		single = append(single, string(r.Text))
	}
	if len(single) == 0 || !slices.Equal(single, inBlock) {
		t.Fatalf("query %d alone: %d lines; in the block: %d lines, or different ones", q, len(single), len(inBlock))
	}

	// One shard alone gives exactly the lines of that shard's subjects, in
	// the same order as within the whole-database search.
	for s := range all {
		mine := map[int64]bool{}
		for _, o := range m.Database().Shard(s) {
			mine[o] = true
		}
		var want []string
		for _, r := range alone.Records {
			if mine[r.Ordinal] {
				want = append(want, string(r.Text))
			}
		}
		res, err := m.Search(q, qs[q:q+1], []int{s}, f, merge.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res.Records {
			got = append(got, string(r.Text))
		}
		if !slices.Equal(got, want) {
			t.Errorf("shard %d alone: %d lines, the whole search's lines of that shard: %d, or in another order", s, len(got), len(want))
		}
	}
}

func TestSameSeedSameOutputOtherSeedOther(t *testing.T) {
	f := format(t, "6 std")
	out := func(c Config) []byte {
		m, qs := newModel(t, c)
		res, err := m.Search(0, qs, allShards(m), f, merge.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Output
	}
	a, b := out(smallConfig()), out(smallConfig())
	if !bytes.Equal(a, b) {
		t.Fatal("two models from one config gave different output")
	}
	other := smallConfig()
	other.Seed++
	if bytes.Equal(a, out(other)) {
		t.Fatal("another seed gave the same output")
	}
}

func TestGeneratedQueriesArePrefixStable(t *testing.T) {
	h := MustHistogram(NTSizes)
	short, err := Queries(7, 10, h)
	if err != nil {
		t.Fatal(err)
	}
	long, err := Queries(7, 1000, h)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(short, long[:10]) {
		t.Fatalf("the first 10 of 1000 queries differ from a set of 10:\n%v\n%v", short, long[:10])
	}
	other, _ := Queries(8, 10, h)
	if slices.Equal(short, other) {
		t.Fatal("another seed gave the same queries")
	}
}

func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return fmt.Sprintf("line %d:\n got  %q\n want %q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d and %d lines)", len(la), len(lb))
}

// A model is read-only: workers in one process may search concurrently.
func TestConcurrentSearchesAgree(t *testing.T) {
	m, qs := newModel(t, smallConfig())
	f := format(t, "6 std")
	want, err := m.Search(0, qs, allShards(m), f, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs := make(chan []byte, 4)
	for range 4 {
		go func() {
			res, err := m.Search(0, qs, allShards(m), f, merge.Options{})
			if err != nil {
				outs <- nil
				return
			}
			outs <- res.Output
		}()
	}
	for range 4 {
		if got := <-outs; !bytes.Equal(got, want.Output) {
			t.Fatal("a concurrent search gave other output")
		}
	}
}
