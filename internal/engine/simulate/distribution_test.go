package simulate

import (
	"fmt"
	"math"
	"testing"

	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

func TestGeneratedLengthsFollowTheHistograms(t *testing.T) {
	h := MustHistogram("100-500:0.5,500-2000:0.4,2000-10000:0.1")
	qs, err := Queries(3, 20000, h)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, q := range qs {
		sum += float64(q.Len)
	}
	if mean := sum / float64(len(qs)); math.Abs(mean-h.Mean())/h.Mean() > 0.03 {
		t.Errorf("query length mean %.1f, histogram's %.1f", mean, h.Mean())
	}

	c := smallConfig()
	c.Subjects, c.SubjectSizes = 20000, h
	m, _ := newModel(t, c)
	db := m.Database()
	var letters int64
	for s := range db.Shards() {
		letters += db.ShardLetters(s)
	}
	if letters != db.Letters() || db.Sequences() != 20000 {
		t.Fatalf("shards hold %d letters of %d, %d sequences", letters, db.Letters(), db.Sequences())
	}
	if mean := float64(letters) / 20000; math.Abs(mean-h.Mean())/h.Mean() > 0.03 {
		t.Errorf("subject length mean %.1f, histogram's %.1f", mean, h.Mean())
	}
}

// Hits per query follow the results histogram, spread over the shards in
// proportion to their letters.
func TestHitsPerQueryFollowTheHistogram(t *testing.T) {
	c := smallConfig()
	c.Results = MustHistogram("100-300:1")
	m, _ := newModel(t, c)
	const n = 1000
	perShard := make([]float64, c.Shards)
	var sum float64
	for q := range n {
		var total int
		for s, k := range m.shardCounts(q) {
			total += k
			perShard[s] += float64(k)
		}
		if total < 100 || total > 300 {
			t.Fatalf("query %d: %d hits, histogram allows 100-300", q, total)
		}
		sum += float64(total)
	}
	if mean := sum / n; math.Abs(mean-200)/200 > 0.03 {
		t.Errorf("mean hits per query %.1f, want 200 within 3%%", mean)
	}
	db := m.Database()
	for s, k := range perShard {
		want := sum * float64(db.ShardLetters(s)) / float64(db.Letters())
		if math.Abs(k-want)/want > 0.05 {
			t.Errorf("shard %d: %.0f hits, want about %.0f (its share of letters)", s, k, want)
		}
	}
	// Search finds exactly those hits.
	qs := []Query{{ID: "a", Len: 500}}
	res, err := m.Search(7, qs, allShards(m), format(t, "6 std"), merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want int
	for _, k := range m.shardCounts(7) {
		want += k
	}
	if res.HSPs != want || len(res.Records) != want {
		t.Fatalf("query 7: %d HSPs, %d records, shardCounts says %d", res.HSPs, len(res.Records), want)
	}
}

// Each hit is a consistent alignment: spans within both sequences, length
// = identities + mismatches + gaps, and a higher score never has a worse
// E-value within one query.
func TestHitsAreConsistentAlignments(t *testing.T) {
	m, qs := newModel(t, smallConfig())
	f := format(t, "6 qseqid qlen slen length nident mismatch gaps gapopen qstart qend sstart send score evalue")
	res, err := m.Search(0, qs, allShards(m), f, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	best := map[int][]struct {
		score int64
		e     float64
	}{}
	for i, r := range res.Records {
		var qid string
		var qlen, slen, length, nident, mismatch, gaps, gapopen, qs1, qe, ss, se int
		var score int64
		var e float64
		if _, err := fmt.Sscan(string(r.Text), &qid, &qlen, &slen, &length, &nident, &mismatch, &gaps, &gapopen, &qs1, &qe, &ss, &se, &score, &e); err != nil {
			t.Fatalf("line %d %q: %v", i, r.Text, err)
		}
		switch {
		case qlen != qs[r.Query].Len || slen != int(r.SLen):
			t.Fatalf("line %d: qlen %d slen %d", i, qlen, slen)
		case length < 1 || length > min(qlen, slen):
			t.Fatalf("line %d: length %d, sequences %d and %d", i, length, qlen, slen)
		case nident+mismatch+gaps != length || nident < 0 || mismatch < 0 || gaps < gapopen:
			t.Fatalf("line %d: %d identities + %d mismatches + %d gaps (%d opens) != length %d", i, nident, mismatch, gaps, gapopen, length)
		case qs1 < 1 || qe > qlen || qe < qs1 || ss < 1 || se > slen || se < ss:
			t.Fatalf("line %d: query %d-%d of %d, subject %d-%d of %d", i, qs1, qe, qlen, ss, se, slen)
		case (qe-qs1+1)+(se-ss+1) != 2*length-gaps:
			t.Fatalf("line %d: spans %d and %d do not account for %d gaps in length %d", i, qe-qs1+1, se-ss+1, gaps, length)
		case score != r.Score || e != r.Evalue:
			t.Fatalf("line %d: text and record disagree", i)
		}
		best[r.Query] = append(best[r.Query], struct {
			score int64
			e     float64
		}{score, e})
	}
	for q, hs := range best {
		for _, a := range hs {
			for _, b := range hs {
				if a.score > b.score && a.e > b.e {
					t.Fatalf("query %d: score %d has E %g, score %d has E %g", q, a.score, a.e, b.score, b.e)
				}
			}
		}
	}
}
