// Package synth generates synthetic sequence sets with real BLAST hits:
// families of sequences mutated from a common ancestor, and queries drawn
// from the same families. Output is a pure function of the options (seeded),
// so tests and benchmarks are reproducible.
package synth

import (
	"fmt"
	"io"
	"math/rand/v2"
)

// Options sizes a synthetic set.
type Options struct {
	Seed       uint64
	Protein    bool
	Families   int // ancestors
	Members    int // database sequences per family
	MinLen     int // ancestor length range
	MaxLen     int
	Mutation   float64 // per-letter substitution rate of members
	Queries    int     // queries, drawn from random families
	QueryFrac  float64 // query length as a fraction of the ancestor
	Unrelated  int     // extra random database sequences without family
	Duplicates int     // members that are exact copies of another (ties in E-value)

	// Near-identical sets, where BLAST's answer for a query can change
	// with the queries searched beside it (docs/concepts.md). Zero values
	// leave the other options' output unchanged.
	Related     float64 // >0: ancestors are mutated from one root at this rate (16S-like), not independent
	Indels      float64 // per-letter insertion or deletion rate of members, beside Mutation's substitutions
	Motifs      int     // with Related: copies of 60-letter windows of the root put into each ancestor (internal repeats)
	LongQueries int     // extra queries joining two or three members of random families (long, chimeric)
	FlankMax    int     // members get random flanks of 0..FlankMax letters each side: equal scores, other lengths
}

// BatchingSensitive is 16S-like data on which one `blastn -task blastn`
// run of all its queries differs from the queries searched one by one
// (6 lines of 15,374): families mutated from one root with internal
// repeats of root motifs, members 0.5-2% apart with indels, and long
// chimeric queries beside fragments, 176,000 query letters in all. The
// determinism tests use it to prove they can fail (docs/concepts.md).
func BatchingSensitive() Options {
	return Options{Seed: 6, Families: 2, Members: 4, MinLen: 1300, MaxLen: 1600, Mutation: 0.005,
		Related: 0.04, Indels: 0.003, Motifs: 6, Queries: 60, QueryFrac: 0.8, LongQueries: 20}
}

const (
	nucl = "ACGT"
	prot = "ACDEFGHIKLMNPQRSTVWY"
)

// Write writes the database and query FASTA.
func Write(o Options, db, queries io.Writer) error {
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	alpha := nucl
	if o.Protein {
		alpha = prot
	}
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return b
	}
	mutate := func(s []byte, rate float64) []byte {
		m := append([]byte(nil), s...)
		for i := range m {
			if r.Float64() < rate {
				m[i] = alpha[r.IntN(len(alpha))]
			}
		}
		return m
	}
	indel := func(s []byte, rate float64) []byte {
		m := make([]byte, 0, len(s)+8)
		for _, c := range s {
			switch x := r.Float64(); {
			case x < rate/2: // deletion
			case x < rate:
				m = append(m, c, alpha[r.IntN(len(alpha))])
			default:
				m = append(m, c)
			}
		}
		return m
	}
	var root []byte
	if o.Related > 0 {
		root = random(o.MinLen + r.IntN(o.MaxLen-o.MinLen+1))
	}
	ancestors := make([][]byte, o.Families)
	for f := range ancestors {
		if root != nil {
			a := indel(mutate(root, o.Related), o.Related/4)
			for range o.Motifs {
				at, from := r.IntN(len(a)), r.IntN(len(root)-60)
				a = append(a[:at:at], append(mutate(root[from:from+60], 0.1), a[at:]...)...)
			}
			ancestors[f] = a
			continue
		}
		ancestors[f] = random(o.MinLen + r.IntN(o.MaxLen-o.MinLen+1))
	}
	var members [][]byte
	var last []byte
	seq := 0
	emit := writeRecord
	for f, a := range ancestors {
		for m := 0; m < o.Members; m++ {
			s := mutate(a, o.Mutation*float64(1+m%4))
			if o.Indels > 0 {
				s = indel(s, o.Indels)
			}
			if o.FlankMax > 0 {
				s = append(append(random(r.IntN(o.FlankMax+1)), s...), random(r.IntN(o.FlankMax+1))...)
			}
			if m > 0 && m <= o.Duplicates {
				s = last
			}
			members = append(members, s)
			last = s
			if err := emit(db, fmt.Sprintf("fam%03d_m%03d", f, m), fmt.Sprintf("family %d member %d", f, m), s); err != nil {
				return err
			}
			seq++
		}
	}
	for u := 0; u < o.Unrelated; u++ {
		if err := emit(db, fmt.Sprintf("rnd%05d", u), "unrelated", random(o.MinLen+r.IntN(o.MaxLen-o.MinLen+1))); err != nil {
			return err
		}
	}
	for q := 0; q < o.Queries; q++ {
		a := ancestors[r.IntN(len(ancestors))]
		n := max(30, int(float64(len(a))*o.QueryFrac))
		start := r.IntN(len(a) - n + 1)
		if err := emit(queries, fmt.Sprintf("query%04d", q), "synthetic query", mutate(a[start:start+n], o.Mutation)); err != nil {
			return err
		}
	}
	for q := 0; q < o.LongQueries; q++ {
		var s []byte
		for range 2 + r.IntN(2) {
			s = append(s, mutate(members[r.IntN(len(members))], o.Mutation/2)...)
		}
		if err := emit(queries, fmt.Sprintf("long%04d", q), "synthetic long query", s); err != nil {
			return err
		}
	}
	return nil
}
