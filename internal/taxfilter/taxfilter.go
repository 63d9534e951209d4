// Package taxfilter gives a database's statistics under a taxid filter as
// BLAST+ 2.12 computes them, so that shards searched with -taxids or
// -negative_taxids report the E-values of the unsharded search.
//
// BLAST turns a taxid filter into a list of OIDs (through the version 5
// database's taxid index) and, given such a list, no longer takes the
// database's size from its volumes or alias files: it scans the OIDs the
// filter keeps and counts them and their letters (CSeqDBImpl, "presence of
// a user GI list implies that the alias file cannot have correct values").
// E-values under a filter are therefore those of a database holding only
// the kept sequences. -taxids keeps a sequence if any of its deflines'
// taxids is listed; -negative_taxids drops it only if all of them are
// (CSeqDBLMDB::NegativeTaxIdsToOids). Letters are counted as
// blastdb.Database.StatsLetters says.
//
// A shard's alias carries whole-database STATS lines, which BLAST takes
// over its own scan; the engine writes them with the filtered totals.
//
// The table is the database's sequences grouped by their taxid sets:
// "taxid,taxid<TAB>sequences<TAB>letters" per line, "-" for no taxid.
package taxfilter

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/blast"
)

// FileName is the table's name among a database's files.
const FileName = "taxstats.tsv"

// Group is the sequences sharing one set of taxids.
type Group struct {
	TaxIDs    []int32 // sorted; empty: no taxid
	Sequences int64
	Letters   int64
}

// Table is a database's groups, sorted by taxid set.
type Table []Group

// Add counts one sequence.
func Add(groups map[string]*Group, taxids []int32, letters int64) {
	k := key(taxids)
	g := groups[k]
	if g == nil {
		g = &Group{TaxIDs: slices.Clone(taxids)}
		groups[k] = g
	}
	g.Sequences++
	g.Letters += letters
}

func key(taxids []int32) string {
	if len(taxids) == 0 {
		return "-"
	}
	s := make([]string, len(taxids))
	for i, t := range taxids {
		s[i] = strconv.Itoa(int(t))
	}
	return strings.Join(s, ",")
}

// Sorted is the groups as a table.
func Sorted(groups map[string]*Group) Table {
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	t := make(Table, len(keys))
	for i, k := range keys {
		t[i] = *groups[k]
	}
	return t
}

// WriteTo writes the table.
func (t Table) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	for _, g := range t {
		fmt.Fprintf(bw, "%s\t%d\t%d\n", key(g.TaxIDs), g.Sequences, g.Letters)
	}
	return 0, bw.Flush()
}

// Read parses a table.
func Read(r io.Reader) (Table, error) {
	var t Table
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for n := 1; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s line %d: want taxids, sequences, letters", FileName, n)
		}
		var g Group
		var err error
		if f[0] != "-" {
			if g.TaxIDs, err = parseIDs(f[0]); err != nil {
				return nil, fmt.Errorf("%s line %d: %w", FileName, n, err)
			}
		}
		g.Sequences, err = strconv.ParseInt(f[1], 10, 64)
		if err == nil {
			g.Letters, err = strconv.ParseInt(f[2], 10, 64)
		}
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", FileName, n, err)
		}
		t = append(t, g)
	}
	return t, sc.Err()
}

func parseIDs(s string) ([]int32, error) {
	var ids []int32
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("taxid %q: want a positive integer", p)
		}
		ids = append(ids, int32(n))
	}
	return ids, nil
}

// Filter is a search's taxid filter.
type Filter struct {
	TaxIDs   []int32 // -taxids: keep sequences with any of these
	Negative []int32 // -negative_taxids: drop sequences with only these
}

// FromOptions finds the filter among a search's BLAST options; nil when
// there is none.
func FromOptions(opts []blast.Option) (*Filter, error) {
	var f Filter
	found := false
	for _, o := range opts {
		var dst *[]int32
		switch o.Name {
		case "taxids":
			dst = &f.TaxIDs
		case "negative_taxids":
			dst = &f.Negative
		default:
			continue
		}
		ids, err := parseIDs(o.Value)
		if err != nil {
			return nil, fmt.Errorf("-%s: %w", o.Name, err)
		}
		*dst, found = append(*dst, ids...), true
	}
	if !found {
		return nil, nil
	}
	return &f, nil
}

// Totals are the sequences and letters BLAST counts for the database
// under the filter. Like BLAST, -taxids naming no taxid of the database
// is an error; -negative_taxids only considers taxids the database has.
func (t Table) Totals(f *Filter) (seqs, letters int64, err error) {
	has := map[int32]bool{}
	for _, g := range t {
		for _, id := range g.TaxIDs {
			has[id] = true
		}
	}
	if len(f.TaxIDs) > 0 && !slices.ContainsFunc(f.TaxIDs, func(id int32) bool { return has[id] }) {
		return 0, 0, fmt.Errorf("-taxids: none of the taxids %v is in the database", f.TaxIDs)
	}
	for _, g := range t {
		if len(f.TaxIDs) > 0 && !slices.ContainsFunc(g.TaxIDs, func(id int32) bool { return slices.Contains(f.TaxIDs, id) }) {
			continue
		}
		if len(f.Negative) > 0 && len(g.TaxIDs) > 0 && !slices.ContainsFunc(g.TaxIDs, func(id int32) bool { return !slices.Contains(f.Negative, id) }) {
			continue
		}
		seqs += g.Sequences
		letters += g.Letters
	}
	return seqs, letters, nil
}
