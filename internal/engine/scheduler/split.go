package scheduler

import "fmt"

// DefaultWeightFactor is ScalaBLAST's per-query weight, as the Blue Gene/P
// paper configured WeightSplit (§V.C, equation 1).
const DefaultWeightFactor = 225

// Span is the queries [First, End) of one worker group.
type Span struct {
	First, End int
}

// Len is the number of queries in the span.
func (s Span) Len() int { return s.End - s.First }

// LengthSplit divides queries (their lengths, in order) among groups worker
// groups so that each gets about the same total letters.
//
// Groups get contiguous runs of queries, cut where the largest group total
// is smallest. Contiguous rather than greedy (longest query to the least
// loaded group): a group's output is then one segment of the campaign's
// output, in query order, like a chunk (docs/concepts.md), and the static
// splits the paper compares against cut their query files into batches.
// The price is balance: a group's total can exceed the mean by up to one
// query's letters, where a greedy deal would interleave.
//
// With fewer queries than groups the last groups are empty; otherwise
// none is.
func LengthSplit(lengths []int, groups int) ([]Span, error) {
	return weightedSplit("LengthSplit", lengths, groups, 0)
}

// WeightSplit is ScalaBLAST's split: like LengthSplit, with every query
// weighing its length plus weightFactor, so a group's work units are
// Σ length(q) + N × weightFactor (Blue Gene/P paper, equation 1).
func WeightSplit(lengths []int, groups, weightFactor int) ([]Span, error) {
	return weightedSplit("WeightSplit", lengths, groups, weightFactor)
}

func weightedSplit(name string, lengths []int, groups, factor int) ([]Span, error) {
	if groups < 1 {
		return nil, fmt.Errorf("%s: %d groups, want at least 1", name, groups)
	}
	if factor < 0 {
		return nil, fmt.Errorf("%s: weight factor %d is negative", name, factor)
	}
	w := make([]int64, len(lengths))
	for i, l := range lengths {
		if l < 0 {
			return nil, fmt.Errorf("%s: query %d has negative length %d", name, i, l)
		}
		w[i] = int64(l) + int64(factor)
	}
	return contiguousSplit(w, groups), nil
}

// contiguousSplit cuts weights into exactly groups contiguous spans whose
// largest total is as small as possible: a binary search for the smallest
// feasible limit, then one greedy pass at that limit that also leaves at
// least one item for every group still to come.
func contiguousSplit(w []int64, groups int) []Span {
	var total, heaviest int64
	for _, x := range w {
		total += x
		heaviest = max(heaviest, x)
	}
	lo, hi := max(heaviest, (total+int64(groups)-1)/int64(groups)), total
	for lo < hi {
		mid := lo + (hi-lo)/2
		if spansNeeded(w, mid) <= groups {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	spans := make([]Span, 0, groups)
	start, n := 0, len(w)
	var sum int64
	for i, x := range w {
		// Close the open span before i when i would overflow the limit, or
		// when the items left are just enough for the groups left.
		if i > start && (sum+x > lo || n-i < groups-len(spans)) {
			spans = append(spans, Span{start, i})
			start, sum = i, 0
		}
		sum += x
	}
	if n > 0 {
		spans = append(spans, Span{start, n})
	}
	for len(spans) < groups {
		spans = append(spans, Span{n, n})
	}
	return spans
}

// spansNeeded counts the spans a greedy pass needs with no span over limit
// (every single weight is at most limit).
func spansNeeded(w []int64, limit int64) int {
	spans, sum := 1, int64(0)
	for _, x := range w {
		if sum+x > limit {
			spans++
			sum = 0
		}
		sum += x
	}
	return spans
}
