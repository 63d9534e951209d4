package seqidfilter

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// table is three shards: a merged sequence (two deflines) in shard 0, two
// versions of one accession in shards 1 and 2.
func table(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, s := range []struct {
		shard   int
		letters int64
		ids     []string
	}{
		{0, 100, []string{"XP_000001.1"}},
		{0, 200, []string{"XP_000002.1", "WP_000002.1"}},
		{1, 300, []string{"XP_000003.1"}},
		{1, 400, []string{"AB000004.1"}},
		{2, 500, []string{"AB000004.2"}},
	} {
		if err := WriteSeq(&b, s.shard, s.letters, s.ids); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func resolve(t *testing.T, tab []byte, l *List) *Resolved {
	t.Helper()
	r, err := Resolve(bytes.NewReader(tab), l, "db")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func list(t *testing.T, negative bool, lines ...string) *List {
	t.Helper()
	l, err := ParseList(strings.NewReader(strings.Join(lines, "\n")+"\n"), negative, "list.txt")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestParseList(t *testing.T) {
	l := list(t, false, "# a comment", "", "  XP_000001.1 trailing words", "ref|XP_000003.1|")
	if !slices.Equal(l.Lines, []string{"XP_000001.1", "ref|XP_000003.1|"}) {
		t.Errorf("lines %q", l.Lines)
	}
	for _, bad := range []string{"", "# only a comment\n\n", "\x00\x01\x02binary\n"} {
		if _, err := ParseList(strings.NewReader(bad), false, "bad.txt"); err == nil || !strings.Contains(err.Error(), "bad.txt") {
			t.Errorf("%q: want an error naming the file, got %v", bad, err)
		}
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{"xp_000001.1": "XP_000001.1", "ref|XP_000001.1|": "XP_000001.1",
		"gb|AB000004.1": "AB000004.1", "AB000004": "AB000004"} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveTotals(t *testing.T) {
	tab := table(t)
	for _, tc := range []struct {
		name          string
		l             *List
		seqs, letters int64
	}{
		// Case, type prefix and missing ids as BLAST matches them; a
		// version-less id names every version.
		{"positive", list(t, false, "xp_000001.1", "gb|XP_000003.1|", "XX_1.1", "AB000004"), 4, 1300},
		{"second defline keeps the sequence", list(t, false, "WP_000002.1"), 1, 200},
		{"negative drops a sequence whose ids are all listed", list(t, true, "XP_000002.1", "WP_000002.1", "AB000004.2"), 3, 800},
		{"negative keeps a sequence with an unlisted id", list(t, true, "XP_000002.1"), 5, 1500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s, l := resolve(t, tab, tc.l).Totals(); s != tc.seqs || l != tc.letters {
				t.Errorf("totals %d sequences, %d letters; want %d, %d", s, l, tc.seqs, tc.letters)
			}
		})
	}
	for _, l := range []*List{list(t, false, "XX_1.1", "AB000004.3"), list(t, true, "XP_000001.1", "XP_000002", "WP_000002.1", "XP_000003.1", "AB000004")} {
		if _, err := Resolve(bytes.NewReader(tab), l, "db"); err == nil || !strings.Contains(err.Error(), "empty database") {
			t.Errorf("%s %q: want an empty database refused, got %v", l.Option(), l.Lines, err)
		}
	}
}

func TestPlan(t *testing.T) {
	tab := table(t)
	pos := resolve(t, tab, list(t, false, "XP_000003.1", "XX_1.1"))
	if p, err := pos.Plan([]int{0}); err != nil || !p.Skip {
		t.Errorf("-seqidlist, a shard with none listed: %+v, %v; want skipped", p, err)
	}
	if p, err := pos.Plan([]int{1, 2}); err != nil || p.Skip || !slices.Equal(p.List, pos.list.Lines) {
		t.Errorf("-seqidlist, a shard listed: %+v, %v; want the whole list", p, err)
	}
	neg := resolve(t, tab, list(t, true, "XP_000001.1", "XX_1.1", "XP_000003.1"))
	for _, tc := range []struct {
		shards []int
		want   []string
	}{
		{[]int{0}, []string{"XP_000001.1", "XX_1.1"}},
		{[]int{1}, []string{"XX_1.1", "XP_000003.1"}},
		{[]int{0, 1, 2}, []string{"XP_000001.1", "XX_1.1", "XP_000003.1"}},
	} {
		if p, err := neg.Plan(tc.shards); err != nil || p.Skip || !slices.Equal(p.List, tc.want) {
			t.Errorf("-negative_seqidlist, shards %v: %+v, %v; want %q", tc.shards, p, err, tc.want)
		}
	}
	// Nothing of shard 2 listed, no absent id: BLAST refuses an empty list.
	own := resolve(t, tab, list(t, true, "XP_000001.1"))
	if p, err := own.Plan([]int{2}); err != nil || !slices.Equal(p.List, []string{NoSuchID}) {
		t.Errorf("-negative_seqidlist naming nothing of the group: %+v, %v", p, err)
	}
	// A version-less id naming versions in two shards searched apart.
	split := resolve(t, tab, list(t, true, "AB000004"))
	if _, err := split.Plan([]int{1}); err == nil || !strings.Contains(err.Error(), `"AB000004"`) {
		t.Errorf("an entry across groups: want it refused by name, got %v", err)
	}
	if p, err := split.Plan([]int{1, 2}); err != nil || !slices.Equal(p.List, []string{"AB000004"}) {
		t.Errorf("an entry within the group: %+v, %v", p, err)
	}
}

func TestReadBadTable(t *testing.T) {
	if _, err := Resolve(strings.NewReader("0\t100\tXP_1.1\nzero\t1\tXP_2.1\n"), list(t, false, "XP_1.1"), "db"); err == nil || !strings.Contains(err.Error(), FileName+" line 2") {
		t.Errorf("a bad table line: want it named, got %v", err)
	}
}
