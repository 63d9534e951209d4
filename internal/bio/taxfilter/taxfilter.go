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
// The table is the database's sequences grouped by shard and taxid set:
// "shard<TAB>taxid,taxid<TAB>sequences<TAB>letters" per line, "-" for no
// taxid. Per shard, because BLAST 2.12 fails a search whose filter keeps
// (-taxids) or drops (-negative_taxids) no sequence of the database it is
// given, which a shard may well be: the engine then skips the shard
// (nothing kept, no hits) or searches it without the negative filter
// (nothing of it is filtered), as Plan says.
package taxfilter

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

// FileName is the table's name among a database's files.
const FileName = "taxstats.tsv"

// Group is the sequences of one shard sharing one set of taxids.
type Group struct {
	Shard     int
	TaxIDs    []int32 // sorted; empty: no taxid
	Sequences int64
	Letters   int64
}

// Table is a database's groups, sorted by taxid set.
type Table []Group

// Add counts one sequence of shard.
func Add(groups map[string]*Group, shard int, taxids []int32, letters int64) {
	k := fmt.Sprintf("%09d\t%s", shard, key(taxids))
	g := groups[k]
	if g == nil {
		g = &Group{Shard: shard, TaxIDs: slices.Clone(taxids)}
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
		fmt.Fprintf(bw, "%d\t%s\t%d\t%d\n", g.Shard, key(g.TaxIDs), g.Sequences, g.Letters)
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
		if len(f) != 4 {
			return nil, fmt.Errorf("%s line %d: want shard, taxids, sequences, letters", FileName, n)
		}
		var g Group
		var err error
		if g.Shard, err = strconv.Atoi(f[0]); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", FileName, n, err)
		}
		if f[1] != "-" {
			if g.TaxIDs, err = parseIDs(f[1]); err != nil {
				return nil, fmt.Errorf("%s line %d: %w", FileName, n, err)
			}
		}
		g.Sequences, err = strconv.ParseInt(f[2], 10, 64)
		if err == nil {
			g.Letters, err = strconv.ParseInt(f[3], 10, 64)
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
	if len(f.TaxIDs) > 0 && len(f.Negative) > 0 {
		return nil, fmt.Errorf("-taxids and -negative_taxids exclude each other (as for BLAST+)")
	}
	return &f, nil
}

// NoIndexError refuses a taxid filter on a database without a taxid table.
func NoIndexError(database string) error {
	return fmt.Errorf("-taxids and -negative_taxids need a database with a taxid index: %s was not sharded from a version 5 BLAST database (blastfleet db shard --blastdb)", database)
}

// keeps reports whether the filter keeps a sequence of taxid set ids:
// -taxids if any of them is listed, -negative_taxids unless all are.
func (f *Filter) keeps(ids []int32) bool {
	if len(f.TaxIDs) > 0 {
		return slices.ContainsFunc(ids, func(id int32) bool { return slices.Contains(f.TaxIDs, id) })
	}
	return len(ids) == 0 || slices.ContainsFunc(ids, func(id int32) bool { return !slices.Contains(f.Negative, id) })
}

// Totals are the sequences and letters BLAST counts for the database
// under the filter. Like BLAST 2.12, a filter that keeps (-taxids) or
// drops (-negative_taxids) no sequence of the database is an error.
func (t Table) Totals(f *Filter) (seqs, letters int64, err error) {
	dropped := false
	for _, g := range t {
		if !f.keeps(g.TaxIDs) {
			dropped = true
			continue
		}
		seqs += g.Sequences
		letters += g.Letters
	}
	switch {
	case len(f.TaxIDs) > 0 && seqs == 0:
		return 0, 0, fmt.Errorf("-taxids: no sequence of the database has taxid %s (BLAST+: Taxonomy ID(s) not found)", joinIDs(f.TaxIDs))
	case len(f.Negative) > 0 && !dropped:
		return 0, 0, fmt.Errorf("-negative_taxids: no sequence of the database has only taxids among %s (BLAST+: Taxonomy ID(s) not found)", joinIDs(f.Negative))
	}
	return seqs, letters, nil
}

// Plan is how one shard group is searched under the filter.
type Plan struct {
	Skip    bool           // nothing of the group is kept: no hits, no search
	Options []blast.Option // the search's options for the group
}

// Plan says how to search the group of shards with options (holding the
// filter). BLAST 2.12 fails on a database where the filter finds nothing
// (CSeqDBLMDBSet: "Taxonomy ID(s) not found"), which a group may be:
//   - -taxids keeping nothing of the group: the group is skipped;
//   - -negative_taxids dropping nothing of the group (it names no taxid
//     there, or only taxids of sequences that have others too): the group
//     is searched with -taxids listing its taxids but those, which keeps
//     the same sequences and the same deflines (BLAST keeps a defline under
//     -negative_taxids unless its taxids are all listed, under -taxids if
//     one is). Searching it without a filter is not the same: with any
//     taxid filter BLAST 2.12 drops some hits near the E-value threshold
//     that it reports without one (seen: blastp, composition-based
//     statistics, E-value 6.8 under -evalue 10), so every group keeps one.
//     Sequences without any taxid tell -taxids from -negative_taxids (kept
//     by the one, dropped by the other): such a group is refused.
func (t Table) Plan(f *Filter, shards []int, options []blast.Option) (Plan, error) {
	var kept, dropped, untaxed bool
	others := map[int32]bool{}
	for _, g := range t {
		if !slices.Contains(shards, g.Shard) {
			continue
		}
		if f.keeps(g.TaxIDs) {
			kept = true
		} else {
			dropped = true
		}
		untaxed = untaxed || len(g.TaxIDs) == 0
		for _, id := range g.TaxIDs {
			if !slices.Contains(f.Negative, id) {
				others[id] = true
			}
		}
	}
	switch {
	case len(f.TaxIDs) > 0 && !kept:
		return Plan{Skip: true}, nil
	case len(f.Negative) == 0 || dropped:
		return Plan{Options: options}, nil
	case untaxed:
		return Plan{}, fmt.Errorf("-negative_taxids %s: shards %v hold no sequence with only these taxids, which BLAST+ 2.12 refuses to search, and sequences without taxid, which keep it from being searched as -taxids; use -taxids with the taxids to keep instead",
			joinIDs(f.Negative), shards)
	}
	keep := make([]int32, 0, len(others))
	for id := range others {
		keep = append(keep, id)
	}
	slices.Sort(keep)
	without := slices.DeleteFunc(slices.Clone(options), func(o blast.Option) bool { return o.Name == "negative_taxids" })
	return Plan{Options: append(without, blast.Option{Name: "taxids", Value: joinIDs(keep)})}, nil
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}
