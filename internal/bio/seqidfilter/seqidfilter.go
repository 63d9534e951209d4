// Package seqidfilter gives a database's statistics under a sequence id
// list (-seqidlist, -negative_seqidlist) as BLAST+ 2.12 computes them, and
// how each shard group is searched under it, so that shards report the
// E-values of the unsharded search.
//
// Measured with BLAST+ 2.12 on version 5 databases:
//   - under a list, E-values come from the sequences the list keeps and
//     their letters (a blastp search of 24 sequences, 5 listed: effective
//     search space 124,270 against 527,244 without the list), though the
//     reports' "Database:" lines still print the whole database's; an
//     alias's STATS_NSEQ and STATS_TOTLEN override that count, which is how
//     a shard gets the unsharded database's figures;
//   - -seqidlist keeps a sequence if any of its deflines' ids is listed
//     (printing only those deflines); -negative_seqidlist drops it only if
//     all are (hiding the listed ones);
//   - ids are matched without case, by their first word, with or without
//     a type prefix (ref|X|, gb|X|), and an id without version matches
//     every version; ids the database lacks are ignored, and a list that
//     keeps nothing prints nothing ("Filtering resulted in an empty
//     database");
//   - -negative_seqidlist crashes blastp (SIGSEGV) on a subset of the
//     database's volumes when it lists an id of a sequence outside them,
//     so each group is given only the entries that are its own (ids the
//     database lacks are harmless), and an empty list file is an error
//     ("Failed to map seqidlist file").
//
// The table is the database's sequences in OID order, one a line:
// "shard<TAB>letters<TAB>id id …", letters as blastdb.Database.StatsLetters
// counts them.
package seqidfilter

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// FileName is the table's name among a database's files.
const FileName = "seqstats.tsv"

// WriteSeq writes one sequence's line of the table.
func WriteSeq(w io.Writer, shard int, letters int64, ids []string) error {
	_, err := fmt.Fprintf(w, "%d\t%d\t%s\n", shard, letters, strings.Join(ids, " "))
	return err
}

// readSeq parses line n of the table.
func readSeq(line string, n int) (shard int, letters int64, ids []string, err error) {
	f := strings.SplitN(line, "\t", 3)
	if len(f) != 3 {
		return 0, 0, nil, fmt.Errorf("%s line %d: want shard, letters, ids", FileName, n)
	}
	if shard, err = strconv.Atoi(f[0]); err == nil {
		letters, err = strconv.ParseInt(f[1], 10, 64)
	}
	if err != nil {
		return 0, 0, nil, fmt.Errorf("%s line %d: %w", FileName, n, err)
	}
	return shard, letters, strings.Fields(f[2]), nil
}

// List is a parsed sequence id list: its entries, each with the key it
// is matched by.
type List struct {
	Negative bool
	Lines    []string // the entries as given (first word of each line)
	keys     []string
}

// ParseList reads a list file as BLAST reads a text list: one id a line,
// its first word; blank lines and lines starting with # are skipped. A
// list without any id is refused, as BLAST refuses it.
func ParseList(r io.Reader, negative bool, name string) (*List, error) {
	l := &List{Negative: negative}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if n == 1 && strings.ContainsFunc(fields[0], func(r rune) bool { return r < ' ' || r > '~' }) {
			return nil, fmt.Errorf("%s: not a text list (one id a line); binary lists from blastdb_aliastool are not supported", name)
		}
		l.Lines = append(l.Lines, fields[0])
		l.keys = append(l.keys, Key(fields[0]))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(l.Lines) == 0 {
		return nil, fmt.Errorf("%s lists no sequence id (BLAST+: Failed to map seqidlist file)", name)
	}
	return l, nil
}

// Option is the BLAST option the list is given to.
func (l *List) Option() string {
	if l.Negative {
		return "negative_seqidlist"
	}
	return "seqidlist"
}

var version = regexp.MustCompile(`\.[0-9]+$`)

// Key is how an id is compared: upper-cased, without a type prefix
// (ref|XP_1.1| is XP_1.1).
func Key(id string) string {
	if _, after, ok := strings.Cut(id, "|"); ok {
		id, _, _ = strings.Cut(after, "|")
	}
	return strings.ToUpper(id)
}

// Resolved is a list matched against a database's table.
type Resolved struct {
	list *List
	// kept: the shards holding a sequence the list keeps; entries: per
	// entry, the shards of the sequences it names.
	kept    map[int]bool
	entries [][]int
	seqs    int64
	letters int64
}

// Resolve matches the list against the table, streamed from r: memory
// holds the list, not the database. A list that keeps no sequence (or,
// negative, drops them all) is an error: BLAST+ would search an empty
// database and print nothing.
func Resolve(table io.Reader, l *List, database string) (*Resolved, error) {
	index := map[string][]int{} // key -> its entries
	for i, k := range l.keys {
		index[k] = append(index[k], i)
	}
	r := &Resolved{list: l, kept: map[int]bool{}, entries: make([][]int, len(l.Lines))}
	sc := bufio.NewScanner(table)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for n := 1; sc.Scan(); n++ {
		shard, letters, ids, err := readSeq(sc.Text(), n)
		if err != nil {
			return nil, err
		}
		listed := 0
		for _, id := range ids {
			k := Key(id)
			// A listed id with its version, or without it.
			named := index[k]
			if u := version.ReplaceAllString(k, ""); u != k {
				named = append(slices.Clip(named), index[u]...)
			}
			for _, e := range named {
				if !slices.Contains(r.entries[e], shard) {
					r.entries[e] = append(r.entries[e], shard)
				}
			}
			if len(named) > 0 {
				listed++
			}
		}
		keep := listed > 0
		if l.Negative {
			keep = listed < len(ids)
		}
		if keep {
			r.kept[shard] = true
			r.seqs++
			r.letters += letters
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", FileName, err)
	}
	if r.seqs == 0 {
		what := "none of its ids is"
		if l.Negative {
			what = "it lists every sequence"
		}
		return nil, fmt.Errorf("-%s: %s in database %s: BLAST+ would search an empty database and print nothing", l.Option(), what, database)
	}
	return r, nil
}

// Totals are the sequences and letters BLAST counts under the list.
func (r *Resolved) Totals() (seqs, letters int64) { return r.seqs, r.letters }

// Plan is how one shard group is searched under the list.
type Plan struct {
	Skip bool     // the list keeps nothing of the group: no hits, no search
	List []string // the entries of the group's list file
}

// Plan says how to search the group of shards: under -seqidlist, with
// the whole list, or not at all when it keeps none of the group's
// sequences; under -negative_seqidlist, with the entries that name the
// group's sequences or none of the database's (see the package comment).
// An entry naming sequences both in and outside the group cannot be given
// to BLAST, and is refused.
func (r *Resolved) Plan(shards []int) (Plan, error) {
	if !r.list.Negative {
		if slices.ContainsFunc(shards, func(s int) bool { return r.kept[s] }) {
			return Plan{List: r.list.Lines}, nil
		}
		return Plan{Skip: true}, nil
	}
	var lines []string
	for i, in := range r.entries {
		inside := slices.ContainsFunc(in, func(s int) bool { return slices.Contains(shards, s) })
		outside := slices.ContainsFunc(in, func(s int) bool { return !slices.Contains(shards, s) })
		switch {
		case inside && outside:
			return Plan{}, fmt.Errorf("-negative_seqidlist entry %q names sequences of shards %v, searched apart (BLAST+ 2.12 fails on a list naming sequences outside the volumes it searches): list each version", r.list.Lines[i], in)
		case inside || len(in) == 0:
			lines = append(lines, r.list.Lines[i])
		}
	}
	if len(lines) == 0 {
		// BLAST refuses an empty list; an id no database holds drops nothing.
		lines = []string{NoSuchID}
	}
	return Plan{List: lines}, nil
}

// NoSuchID is the entry of a negative list that drops nothing of its
// group: an id no BLAST database holds (ids have no spaces, this has no
// accession's shape).
const NoSuchID = "blastfleet-no-such-sequence-id"

// NoTableError refuses a sequence id list on a database without a
// sequence table.
func NoTableError(option, database string) error {
	return fmt.Errorf("-%s needs a database sharded from a version 5 BLAST database built with -parse_seqids (blastfleet db shard --blastdb): %s has no sequence table (%s)", option, database, FileName)
}
