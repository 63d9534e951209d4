package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/test/support/synth"
)

// Two synthetic nucleotide sets make a skewed one, the kind of set the
// Blue Gene/P paper built (§V.C: long nt sequences are the costly ones):
// many short queries from small families, and a few very long queries
// from one large family, so a long query costs far more per letter than
// a short one and equal letters are not equal work.
var (
	shortSet = synth.Options{Seed: 21, Families: 40, Members: 6, MinLen: 300, MaxLen: 900, Mutation: 0.05,
		Queries: 60, QueryFrac: 0.7, Unrelated: 300}
	longSet = synth.Options{Seed: 22, Families: 1, Members: 1200, MinLen: 10000, MaxLen: 14000, Mutation: 0.05,
		Queries: 3, QueryFrac: 0.9}
)

// longAt are the long queries' positions in the query set.
var longAt = []int{12, 32, 49}

// writeSkewed writes the skewed set's database and queries into dir.
func writeSkewed(dir string) (dbFA, queries string, err error) {
	var sdb, sq, ldb, lq bytes.Buffer
	if err := synth.Write(shortSet, &sdb, &sq); err != nil {
		return "", "", err
	}
	if err := synth.Write(longSet, &ldb, &lq); err != nil {
		return "", "", err
	}
	// The long set's ids must not clash with the short set's.
	rename := strings.NewReplacer(">fam", ">big", ">query", ">long")
	short := strings.SplitAfter(strings.TrimSuffix(sq.String(), "\n"), "\n>")
	long := strings.SplitAfter(strings.TrimSuffix(rename.Replace(lq.String()), "\n"), "\n>")
	recs := func(parts []string) []string {
		var out []string
		for _, p := range parts {
			p = strings.TrimSuffix(p, ">")
			if !strings.HasPrefix(p, ">") {
				p = ">" + p
			}
			out = append(out, strings.TrimSuffix(p, "\n")+"\n")
		}
		return out
	}
	var q strings.Builder
	sr, lr := recs(short), recs(long)
	si, li := 0, 0
	for k := 0; si < len(sr) || li < len(lr); k++ {
		if li < len(lr) && (si == len(sr) || (li < len(longAt) && k == longAt[li])) {
			q.WriteString(lr[li])
			li++
		} else {
			q.WriteString(sr[si])
			si++
		}
	}
	dbFA, queries = filepath.Join(dir, "skewed-db.fa"), filepath.Join(dir, "skewed-queries.fa")
	db := append(sdb.Bytes(), rename.Replace(ldb.String())...)
	for path, data := range map[string][]byte{dbFA: db, queries: []byte(q.String())} {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			continue // keep the mtime: makeblastdb's input is unchanged
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return "", "", fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return dbFA, queries, nil
}
