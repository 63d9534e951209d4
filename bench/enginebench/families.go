package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

// families describes the recall benchmark's synthetic nucleotide set:
// large families whose members diverge from their ancestor by a continuous
// range of substitution rates, with short insertions and deletions.
//
// test/support/synth mutates by substitution only, in four discrete levels;
// measured in trial runs, BLAST's own -max_target_seqs 50 then already
// returns the exact top 50 (recall 1.0, nucleotide and protein), because a
// hit's preliminary score ranks it as its final score does. Indels are what
// make BLAST's preliminary (score-only, small X-drop) alignment stop short
// of the final one, so its early pruning drops hits that end up better
// than ones it keeps: the effect docs/concepts.md#the-correctness-contract describes.
type families struct {
	Seed             uint64
	Families         int
	Members          int     // per family: every query has about this many hits
	MinLen, MaxLen   int     // ancestor lengths
	MinSubst, MaxSub float64 // a member's substitution rate, uniform in the range
	IndelRatio       float64 // indel events per position, as a fraction of the substitution rate
	Unrelated        int
	Queries          int
}

func recallFamilies() families {
	return families{Seed: 1, Families: 5, Members: 500, MinLen: 800, MaxLen: 2000,
		MinSubst: 0.01, MaxSub: 0.20, IndelRatio: 0.2, Unrelated: 500, Queries: 30}
}

func (f families) String() string {
	return fmt.Sprintf("synthetic nucleotide families (seed %d): %d families x %d members, ancestors %d-%d nt, "+
		"members with %.0f-%.0f%% substitutions and indels (1-6 nt) at %.0f%% of that rate, %d unrelated sequences; "+
		"%d queries, each a 50-80%% fragment of an ancestor with 1%% substitutions",
		f.Seed, f.Families, f.Members, f.MinLen, f.MaxLen, 100*f.MinSubst, 100*f.MaxSub, 100*f.IndelRatio,
		f.Unrelated, f.Queries)
}

// write returns the database and query FASTA.
func (f families) write() (db, queries []byte) {
	r := rand.New(rand.NewPCG(f.Seed, 0x5eed))
	const alpha = "ACGT"
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.IntN(4)]
		}
		return b
	}
	mutate := func(s []byte, subst, indel float64) []byte {
		out := make([]byte, 0, len(s)+16)
		for i := 0; i < len(s); {
			x := r.Float64()
			if x < indel/2 { // deletion
				i += 1 + r.IntN(6)
				continue
			}
			if x < indel { // insertion before this letter
				out = append(out, random(1+r.IntN(6))...)
			}
			c := s[i]
			if r.Float64() < subst {
				c = alpha[r.IntN(4)]
			}
			out = append(out, c)
			i++
		}
		return out
	}
	var dbBuf, qBuf bytes.Buffer
	emit := func(buf *bytes.Buffer, id string, s []byte) {
		fmt.Fprintf(buf, ">%s\n", id)
		for i := 0; i < len(s); i += 70 {
			buf.Write(s[i:min(i+70, len(s))])
			buf.WriteByte('\n')
		}
	}
	anc := make([][]byte, f.Families)
	for i := range anc {
		anc[i] = random(f.MinLen + r.IntN(f.MaxLen-f.MinLen+1))
	}
	for fi, a := range anc {
		for m := 0; m < f.Members; m++ {
			rate := f.MinSubst + (f.MaxSub-f.MinSubst)*r.Float64()
			emit(&dbBuf, fmt.Sprintf("fam%d_m%03d", fi, m), mutate(a, rate, rate*f.IndelRatio))
		}
	}
	for u := 0; u < f.Unrelated; u++ {
		emit(&dbBuf, fmt.Sprintf("unrelated%04d", u), random(f.MinLen+r.IntN(f.MaxLen-f.MinLen+1)))
	}
	for q := 0; q < f.Queries; q++ {
		a := anc[r.IntN(len(anc))]
		n := int(float64(len(a)) * (0.5 + 0.3*r.Float64()))
		s := r.IntN(len(a) - n + 1)
		emit(&qBuf, fmt.Sprintf("query%02d", q), mutate(a[s:s+n], 0.01, 0.001))
	}
	return dbBuf.Bytes(), qBuf.Bytes()
}
