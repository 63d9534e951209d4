package taxfilter

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

// table: shard 0 holds taxa 1 and 2 and a sequence of both; shard 1 taxon
// 3 and a sequence of 2 and 3; shard 2 a sequence without taxid.
func table() Table {
	g := map[string]*Group{}
	Add(g, 0, []int32{1}, 100)
	Add(g, 0, []int32{1}, 50)
	Add(g, 0, []int32{2}, 10)
	Add(g, 0, []int32{1, 2}, 7)
	Add(g, 1, []int32{3}, 1000)
	Add(g, 1, []int32{2, 3}, 5)
	Add(g, 2, nil, 3)
	return Sorted(g)
}

func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if _, err := table().WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, table()) {
		t.Fatalf("read back %+v", got)
	}
}

func TestTotals(t *testing.T) {
	for _, tc := range []struct {
		f             Filter
		seqs, letters int64
		err           string
	}{
		{Filter{TaxIDs: []int32{1}}, 3, 157, ""},
		{Filter{TaxIDs: []int32{2}}, 3, 22, ""},
		{Filter{TaxIDs: []int32{3, 9}}, 2, 1005, ""},
		{Filter{TaxIDs: []int32{9}}, 0, 0, "no sequence of the database has taxid 9"},
		// -negative_taxids drops a sequence only if all its taxids are listed.
		{Filter{Negative: []int32{2}}, 6, 1165, ""},
		{Filter{Negative: []int32{1, 2}}, 3, 1008, ""},
		{Filter{Negative: []int32{9}}, 0, 0, "no sequence of the database has only taxids among 9"},
	} {
		seqs, letters, err := table().Totals(&tc.f)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want %q", tc.f, err, tc.err)
			}
			continue
		}
		if err != nil || seqs != tc.seqs || letters != tc.letters {
			t.Errorf("%+v: %d sequences, %d letters, %v; want %d, %d", tc.f, seqs, letters, err, tc.seqs, tc.letters)
		}
	}
}

func TestPlan(t *testing.T) {
	neg := []blast.Option{{Name: "word_size", Value: "3"}, {Name: "negative_taxids", Value: "2"}}
	pos := []blast.Option{{Name: "taxids", Value: "3"}}
	fNeg, _ := FromOptions(neg)
	negOther := []blast.Option{{Name: "negative_taxids", Value: "1"}}
	fNegOther, _ := FromOptions(negOther)
	fPos, _ := FromOptions(pos)
	tt := table()
	for _, tc := range []struct {
		name   string
		f      *Filter
		opts   []blast.Option
		shards []int
		want   Plan
		err    string
	}{
		{"kept", fPos, pos, []int{1}, Plan{Options: pos}, ""},
		{"nothing kept: skipped", fPos, pos, []int{0, 2}, Plan{Skip: true}, ""},
		{"some dropped", fNeg, neg, []int{0}, Plan{Options: neg}, ""},
		{"touched, none dropped: the other taxids kept", fNeg, neg, []int{1}, Plan{Options: []blast.Option{neg[0], {Name: "taxids", Value: "3"}}}, ""},
		{"untouched: its taxids kept", fNegOther, negOther, []int{1}, Plan{Options: []blast.Option{{Name: "taxids", Value: "2,3"}}}, ""},
		{"untouched, untaxed", fNeg, neg, []int{2}, Plan{}, "sequences without taxid"},
		{"touched, none dropped, untaxed", fNeg, neg, []int{1, 2}, Plan{}, "sequences without taxid"},
	} {
		got, err := tt.Plan(tc.f, tc.shards, tc.opts)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	if _, err := FromOptions([]blast.Option{{Name: "taxids", Value: "1"}, {Name: "negative_taxids", Value: "2"}}); err == nil {
		t.Error("-taxids with -negative_taxids accepted")
	}
}
