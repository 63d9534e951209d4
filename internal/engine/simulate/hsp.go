package simulate

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// Scoring is blastn's (BLAST+ 2.12 -task blastn: reward 2, penalty -3,
// gap open 5, gap extend 2, and the λ and K of BLAST's table for those),
// checked against a blastn run here: raw score 3458 printed bit score 3119.
const (
	reward    = 2
	penalty   = 3
	gapOpen   = 5
	gapExtend = 2
	lambda    = 0.625
	kappa     = 0.41
)

// Identity of a hit is uniform in [minIdentity, 1].
const minIdentity = 0.70

// hsp is one simulated hit: one line of BLAST's tabular output.
type hsp struct {
	ordinal                    int64
	slen                       int
	length, nident, mismatch   int
	gapopen, gaps              int
	qstart, qend, sstart, send int
	score                      int64
	bits, evalue               float64 // unrounded
	evalueText, bitsText       string  // as BLAST prints them
	printedEvalue              float64 // evalueText's value: what the merge compares
	resultBytes                int64   // S3aSim's result size
	index                      int     // position in its (query, shard) stream
}

// shardCounts splits query q's hits over the shards in proportion to their
// letters: a draw per hit from a stream keyed by (seed, q), so the split
// depends on neither the block nor the shard group being searched.
func (m *Model) shardCounts(q int) []int {
	n := m.cfg.Results.Sample(stream(m.cfg.Seed, domainCount, uint64(q), 0))
	counts := make([]int, len(m.cum))
	r := stream(m.cfg.Seed, domainAlloc, uint64(q), 0)
	total := m.cum[len(m.cum)-1]
	for range n {
		x := r.Float64() * total
		s := sort.SearchFloat64s(m.cum, x)
		if s < len(m.cum) && m.cum[s] == x {
			s++ // x falls in the next shard's interval
		}
		counts[min(s, len(m.cum)-1)]++
	}
	return counts
}

// shardHits draws the n hits of query q in shard s from a stream keyed by
// (seed, q, s), in stream order. Subjects are drawn with replacement, so a
// subject may have several HSPs, as in BLAST.
func (m *Model) shardHits(q int, query Query, s, n int) []hsp {
	r := stream(m.cfg.Seed, domainHits, uint64(q), uint64(s))
	subjects := m.db.Shard(s)
	hits := make([]hsp, n)
	for i := range hits {
		o := subjects[r.IntN(len(subjects))]
		hits[i] = m.drawHit(r, query.Len, o, m.db.Length(o))
		hits[i].index = i
	}
	return hits
}

// drawHit shapes one hit. Its result size follows S3aSim; the alignment is
// a third of it (the pairwise text's three rows), capped by both sequences.
func (m *Model) drawHit(r *rand.Rand, qlen int, ordinal int64, slen int) hsp {
	h := hsp{ordinal: ordinal, slen: slen}
	hi := max(m.cfg.MinResultBytes, 3*int64(max(qlen, slen)))
	h.resultBytes = m.cfg.MinResultBytes + r.Int64N(hi-m.cfg.MinResultBytes+1)
	h.length = int(min(max(h.resultBytes/3, 1), int64(min(qlen, slen))))

	identity := minIdentity + (1-minIdentity)*r.Float64()
	h.gapopen = r.IntN(1 + h.length/250)
	h.gaps = h.gapopen
	if h.gapopen > 0 {
		h.gaps += r.IntN(2*h.gapopen + 1)
	}
	h.nident = min(int(math.Round(identity*float64(h.length))), h.length-h.gaps)
	h.mismatch = h.length - h.nident - h.gaps

	// Gaps in the query row shorten its span, gaps in the subject row the
	// subject's; each span fits its sequence because length does.
	queryGaps := r.IntN(h.gaps + 1)
	qspan, sspan := h.length-queryGaps, h.length-(h.gaps-queryGaps)
	h.qstart = 1 + r.IntN(qlen-qspan+1)
	h.qend = h.qstart + qspan - 1
	h.sstart = 1 + r.IntN(slen-sspan+1)
	h.send = h.sstart + sspan - 1

	h.score = max(1, int64(reward*h.nident-penalty*h.mismatch-gapOpen*h.gapopen-gapExtend*h.gaps))
	h.bits = bitScore(h.score)
	// E = m·n·2^-bits with the query's and the whole database's lengths
	// (BLAST's formula without its length adjustment): every shard search
	// uses the whole database's statistics, as with the alias files.
	h.evalue = float64(qlen) * float64(m.db.Letters()) * math.Exp2(-h.bits)
	h.evalueText, h.bitsText = formatEvalue(h.evalue), formatBits(h.bits)
	h.printedEvalue, _ = strconv.ParseFloat(h.evalueText, 64)
	return h
}

// bitScore is BLAST's normalised score, (λS − ln K) / ln 2.
func bitScore(score int64) float64 {
	return (lambda*float64(score) - math.Log(kappa)) / math.Ln2
}
