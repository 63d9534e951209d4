package synth

import (
	"fmt"
	"io"
)

// Genomes sizes a set of bacterial-like genomes and nucleotide queries
// cut from related strains that are not in the database: the shape of
// reads or contigs searched against a genome collection.
//
// A random root genome (with low-complexity stretches: homopolymers,
// dinucleotide and short tandem repeats) is mutated into lineage
// ancestors; each lineage ancestor gets its own rRNA operon copies (one
// operon, conserved across lineages) and IS element copies (a few
// element types shared by every lineage, as mobile elements are). Strains
// are mutated from their lineage ancestor (substitutions, small indels,
// inversions, translocations, extra IS copies). Strains in the database
// are written whole (even-numbered strains) or as draft contigs (odd ones);
// held-out strains of the same lineages, and of one novel lineage, give
// the queries. A share of the queries is random sequence (no hit).
type Genomes struct {
	Seed      uint64
	Lineages  int     // lineage ancestors mutated from the root
	Strains   int     // database genomes, spread over the lineages
	GenomeLen int     // letters of the root genome
	Lineage   float64 // substitution rate of a lineage ancestor from the root
	MinStrain float64 // a strain's substitution rate from its lineage ancestor,
	MaxStrain float64 // uniform in [MinStrain, MaxStrain]
	Indel     float64 // indel events per letter, as a fraction of the substitution rate
	Rearrange int     // inversions and translocations per strain
	ISTypes   int     // IS element types (1.2-2.5 kb each)
	ISCopies  int     // IS copies per lineage ancestor; strains add up to as many again
	Operons   int     // rRNA operon copies (5 kb) per lineage ancestor

	HeldOut   int     // strains per lineage not in the database, sources of queries
	Novel     bool    // also a held-out strain of a lineage with no strain in the database
	Queries   int     // queries
	QueryMin  int     // query length range
	QueryMax  int     //
	QueryMut  float64 // a query's extra substitutions, uniform in [0, QueryMut] (sequencing errors)
	NoHit     float64 // share of queries that are random sequence
	LowCompl  int     // mean letters between low-complexity stretches of the root (0: none)
	ContigMin int     // draft strains' contig length: ContigMin + exponential of mean ContigAvg
	ContigAvg int     //
}

// GenomeSet is workload (a) of the benchmarks: 20 genomes of about 2.2 Mb
// from 4 lineages (44 Mb), and 300-letter queries of held-out strains
// (identities mostly 85-99% to their best database strain, 3% random).
// Queries limits the query count (the benchmarks size it per task).
func GenomeSet(queries int) Genomes {
	return Genomes{Seed: 28, Lineages: 4, Strains: 20, GenomeLen: 2_150_000, Lineage: 0.12,
		MinStrain: 0.005, MaxStrain: 0.05, Indel: 0.1, Rearrange: 6, ISTypes: 4, ISCopies: 8, Operons: 6,
		HeldOut: 1, Novel: true, Queries: queries, QueryMin: 300, QueryMax: 300, QueryMut: 0.03, NoHit: 0.03,
		LowCompl: 4000, ContigMin: 2000, ContigAvg: 60_000}
}

// LongQuerySet is workload (c) of the benchmarks: a few long queries
// (100-500 kb of held-out strains) against a small database of 3 genomes
// of about 1 Mb.
func LongQuerySet(queries int) Genomes {
	return Genomes{Seed: 29, Lineages: 2, Strains: 3, GenomeLen: 1_000_000, Lineage: 0.12,
		MinStrain: 0.005, MaxStrain: 0.05, Indel: 0.1, Rearrange: 4, ISTypes: 3, ISCopies: 6, Operons: 5,
		HeldOut: 2, Queries: queries, QueryMin: 100_000, QueryMax: 500_000, QueryMut: 0.01,
		LowCompl: 4000, ContigMin: 2000, ContigAvg: 60_000}
}

// strain is one generated genome.
type strain struct {
	name    string
	lineage int
	seq     []byte
	div     float64 // substitution rate from the lineage ancestor
}

// Write writes the database and query FASTA.
func (g Genomes) Write(db, queries io.Writer) error {
	dbs, held := g.strains()
	for i, s := range dbs {
		desc := fmt.Sprintf("lineage=%d divergence=%.4f", s.lineage, s.div)
		if i%2 == 0 {
			if err := writeRecord(db, s.name, desc+" complete", s.seq); err != nil {
				return err
			}
			continue
		}
		m := newMutator(g.Seed, uint64(1000+i), nucl, nil)
		for c, at := 0, 0; at < len(s.seq); c++ {
			n := g.ContigMin + int(m.r.ExpFloat64()*float64(g.ContigAvg))
			if len(s.seq)-at-n < g.ContigMin {
				n = len(s.seq) - at
			}
			if err := writeRecord(db, fmt.Sprintf("%s_c%03d", s.name, c), desc+" contig", s.seq[at:at+n]); err != nil {
				return err
			}
			at += n
		}
	}
	m := newMutator(g.Seed, 2, nucl, nil)
	for q := range g.Queries {
		n := g.QueryMin + m.r.IntN(g.QueryMax-g.QueryMin+1)
		if m.r.Float64() < g.NoHit || len(held) == 0 {
			if err := writeRecord(queries, fmt.Sprintf("q%05d", q), "random", m.random(n)); err != nil {
				return err
			}
			continue
		}
		s := held[m.r.IntN(len(held))]
		at := m.r.IntN(len(s.seq) - n + 1)
		mut := g.QueryMut * m.r.Float64()
		frag := m.substitute(s.seq[at:at+n], mut)
		strand := "+"
		if m.r.IntN(2) == 0 {
			frag, strand = revcomp(frag), "-"
		}
		desc := fmt.Sprintf("src=%s lineage=%d pos=%d strand=%s mut=%.4f", s.name, s.lineage, at, strand, mut)
		if err := writeRecord(queries, fmt.Sprintf("q%05d", q), desc, frag); err != nil {
			return err
		}
	}
	return nil
}

// strains returns the database strains and the held-out ones.
func (g Genomes) strains() (db, held []strain) {
	m := newMutator(g.Seed, 1, nucl, nil)
	root := g.root(m)
	var is [][]byte
	for range g.ISTypes {
		is = append(is, m.random(1200+m.r.IntN(1300)))
	}
	operon := m.random(5000)
	lineages := g.Lineages
	if g.Novel {
		lineages++
	}
	anc := make([][]byte, lineages)
	for l := range anc {
		a := m.indel(m.substitute(root, g.Lineage), g.Lineage*g.Indel, 6)
		for range g.Operons {
			a = insert(a, m.r.IntN(len(a)), m.orient(m.substitute(operon, 0.01)))
		}
		for range g.ISCopies {
			a = g.insertIS(m, a, is)
		}
		anc[l] = a
	}
	newStrain := func(name string, l int) strain {
		div := g.MinStrain + (g.MaxStrain-g.MinStrain)*m.r.Float64()
		s := m.indel(m.substitute(anc[l], div), div*g.Indel, 6)
		for range g.Rearrange {
			s = m.rearrange(s)
		}
		for range m.r.IntN(g.ISCopies + 1) {
			s = g.insertIS(m, s, is)
		}
		return strain{name: name, lineage: l, seq: s, div: div}
	}
	for i := range g.Strains {
		db = append(db, newStrain(fmt.Sprintf("strain%02d", i), i%g.Lineages))
	}
	for i := range g.HeldOut * g.Lineages {
		held = append(held, newStrain(fmt.Sprintf("held%02d", i), i%g.Lineages))
	}
	if g.Novel {
		held = append(held, newStrain("novel", g.Lineages))
	}
	return db, held
}

// root is a random genome with low-complexity stretches.
func (g Genomes) root(m *mutator) []byte {
	if g.LowCompl <= 0 {
		return m.random(g.GenomeLen)
	}
	s := make([]byte, 0, g.GenomeLen)
	for len(s) < g.GenomeLen {
		s = append(s, m.random(m.gap(1/float64(g.LowCompl)))...)
		var unit []byte
		reps := 0
		switch m.r.IntN(3) {
		case 0: // homopolymer
			unit, reps = m.random(1), 10+m.r.IntN(30)
		case 1: // dinucleotide repeat
			unit, reps = m.random(2), 10+m.r.IntN(40)
		default: // short tandem repeat
			unit, reps = m.random(3+m.r.IntN(4)), 5+m.r.IntN(15)
		}
		for range reps {
			s = append(s, unit...)
		}
	}
	return s[:g.GenomeLen]
}

// orient returns s or its reverse complement.
func (m *mutator) orient(s []byte) []byte {
	if m.r.IntN(2) == 0 {
		return revcomp(s)
	}
	return s
}

// insertIS inserts a near-identical copy of a random IS element type.
func (g Genomes) insertIS(m *mutator, s []byte, is [][]byte) []byte {
	if len(is) == 0 {
		return s
	}
	e := m.orient(m.substitute(is[m.r.IntN(len(is))], 0.002))
	return insert(s, m.r.IntN(len(s)), e)
}

// rearrange inverts a segment (1-50 kb) in place, or moves one elsewhere.
func (m *mutator) rearrange(s []byte) []byte {
	n := min(len(s)/4, 1000+m.r.IntN(49_000))
	at := m.r.IntN(len(s) - n + 1)
	if m.r.IntN(2) == 0 {
		copy(s[at:at+n], revcomp(s[at:at+n]))
		return s
	}
	seg := append([]byte(nil), s[at:at+n]...)
	rest := append(append([]byte(nil), s[:at]...), s[at+n:]...)
	return insert(rest, m.r.IntN(len(rest)+1), seg)
}
