package synth

import (
	"fmt"
	"io"
	"math"
)

// Proteins sizes a protein database of families and queries that are
// new members of those families (not in the database).
//
// Family ancestors have log-normal lengths (median MedianLen) and BLAST's
// background amino-acid frequencies, start with M, and some carry a
// low-complexity stretch (a poly-Q, poly-S or short tandem repeat). A
// family has 1-3 subfamily ancestors; members mutate from them
// (substitutions, indels, ragged ends), and some are fused with a domain
// of another family. Family sizes are geometric (many small, a few large).
type Proteins struct {
	Seed       uint64
	Families   int
	MeanSize   float64 // mean members per family (geometric)
	Singletons int     // unrelated database proteins
	MedianLen  int     // ancestor length: log-normal around it
	Sigma      float64 // of the log-normal
	MinSubst   float64 // a member's substitution rate from its subfamily ancestor,
	MaxSubst   float64 // uniform in [MinSubst, MaxSubst]
	Indel      float64 // indel events per letter, as a fraction of the substitution rate
	Fusion     float64 // share of members fused with another family's domain
	LowCompl   float64 // share of ancestors with a low-complexity stretch
	Queries    int
	NoHit      float64 // share of queries that are random proteins
}

// ProteinSet is workload (b) of the benchmarks: 2,400 families of mean
// size 5 and 1,000 singletons (about 13,000 proteins, median length 300)
// and protein queries that are new members of random families.
func ProteinSet(queries int) Proteins {
	return Proteins{Seed: 30, Families: 2400, MeanSize: 5, Singletons: 1000, MedianLen: 300, Sigma: 0.55,
		MinSubst: 0.05, MaxSubst: 0.5, Indel: 0.1, Fusion: 0.05, LowCompl: 0.1, Queries: queries, NoHit: 0.05}
}

// aminoFreqs are BLAST's Robinson-Robinson background frequencies (per
// 1000) of prot's letters, ACDEFGHIKLMNPQRSTVWY.
var aminoFreqs = []float64{78, 19, 54, 63, 39, 74, 22, 51, 57, 90, 22, 45, 52, 43, 51, 71, 58, 64, 13, 32}

type family struct {
	sub [][]byte // subfamily ancestors
}

// Write writes the database and query FASTA.
func (p Proteins) Write(db, queries io.Writer) error {
	m := newMutator(p.Seed, 1, prot, aminoFreqs)
	fams := make([]family, p.Families)
	for f := range fams {
		a := p.ancestor(m)
		for range 1 + m.r.IntN(3) {
			fams[f].sub = append(fams[f].sub, m.substitute(a, 0.1+0.3*m.r.Float64()))
		}
	}
	for f, fam := range fams {
		size := 1 + int(math.Log(1-m.r.Float64())/math.Log(1-1/p.MeanSize))
		for i := range size {
			s, div := p.member(m, fams, fam)
			if err := writeRecord(db, fmt.Sprintf("fam%04d_%03d", f, i), fmt.Sprintf("family=%d divergence=%.3f", f, div), s); err != nil {
				return err
			}
		}
	}
	for u := range p.Singletons {
		if err := writeRecord(db, fmt.Sprintf("single%05d", u), "singleton", p.ancestor(m)); err != nil {
			return err
		}
	}
	for q := range p.Queries {
		if m.r.Float64() < p.NoHit {
			if err := writeRecord(queries, fmt.Sprintf("p%04d", q), "random", p.ancestor(m)); err != nil {
				return err
			}
			continue
		}
		f := m.r.IntN(len(fams))
		s, div := p.member(m, fams, fams[f])
		if err := writeRecord(queries, fmt.Sprintf("p%04d", q), fmt.Sprintf("family=%d divergence=%.3f", f, div), s); err != nil {
			return err
		}
	}
	return nil
}

// ancestor is a random protein of log-normal length.
func (p Proteins) ancestor(m *mutator) []byte {
	n := int(float64(p.MedianLen) * math.Exp(p.Sigma*m.r.NormFloat64()))
	n = min(max(n, 40), 5000)
	s := m.random(n)
	s[0] = 'M'
	if m.r.Float64() < p.LowCompl {
		var unit []byte
		switch m.r.IntN(3) {
		case 0:
			unit = []byte{'Q'}
		case 1:
			unit = []byte{'S'}
		default:
			unit = m.random(2 + m.r.IntN(4))
		}
		var lc []byte
		for len(lc) < 15+m.r.IntN(40) {
			lc = append(lc, unit...)
		}
		s = insert(s, 1+m.r.IntN(len(s)-1), lc)
	}
	return s
}

// member is a new member of fam, and its substitution rate.
func (p Proteins) member(m *mutator, fams []family, fam family) ([]byte, float64) {
	div := p.MinSubst + (p.MaxSubst-p.MinSubst)*m.r.Float64()
	s := m.indel(m.substitute(fam.sub[m.r.IntN(len(fam.sub))], div), div*p.Indel, 8)
	// Ragged ends: up to 10% trimmed or extended at each end.
	cut := func(n int) int { return m.r.IntN(n/10 + 1) }
	s = s[cut(len(s)):]
	s = s[:len(s)-cut(len(s))]
	if m.r.IntN(2) == 0 {
		s = append(m.random(cut(len(s))), s...)
		s[0] = 'M'
	}
	if m.r.Float64() < p.Fusion {
		o := fams[m.r.IntN(len(fams))].sub[0]
		n := min(len(o), 80+m.r.IntN(200))
		at := m.r.IntN(len(o) - n + 1)
		s = append(s, m.substitute(o[at:at+n], div)...)
	}
	return s, div
}
