package engine

import (
	"fmt"
	"slices"

	"github.com/blastfleet/blastfleet/internal/blast"
)

// The decomposition: which shard groups a search's blocks are searched
// against. Batches fix the database scans (BLAST+ scans each group once
// per batch however blocks are cut), so blocks only need to be small
// enough to keep every worker busy, down to one batch. When a search has
// too few batches for its workers (a few long queries, or short ones that
// fill a batch or two), the database is cut into groups too (mpiBLAST's
// database segmentation): every batch is then searched against every
// group, which repeats the batch's set-up (its lookup table and statistics)
// per group, so groups are added only while the predicted makespan drops.

// setupShare is the part of a batch's search that is repeated for every
// group it is searched against, as a share of the batch's whole search.
// Measured on 2 cores (DESIGN.md §10): two megablast runs on halves of the
// database took 1.32x the limit (0.3 of the work repeated), dc-megablast
// 1.07x; four blastp shards cost 17% more than one database (0.06 per
// group).
func setupShare(p blast.Program, opts []blast.Option) float64 {
	if p != blast.Blastn {
		return 0.06
	}
	switch blast.BlastnTask(opts) {
	case "megablast":
		return 0.3
	case "dc-megablast":
		return 0.07
	}
	return 0.1
}

// segmentable says whether the database may be cut into more groups than
// the cache needs without changing a byte of the output: BLAST's answer on
// one group is its answer on the database, and the merge of several equals
// it only when no query can have more subjects than -max_target_seqs keeps
// (the database has fewer sequences) and tied subjects are ordered by
// values the merge sees (E-values that do not depend on the subject's
// length: blastn, tblastx).
func (c *Config) segmentable(dbSequences int64) bool {
	return !c.Program.LengthDependentEvalues() && c.TopHits.Auto && dbSequences <= int64(c.MaxTargetSeqs)
}

// decompose chooses the shard groups: base (the groups --group-bytes and
// --cache-bytes allow), or, when the database may be segmented, the
// number of contiguous groups balanced by bytes that minimises the
// predicted makespan of batches x groups tasks on workers workers. It
// returns the groups and why.
func decompose(sizes []int64, ids []int, baseIDs [][]int, batchLetters []int64, workers int, share float64, segmentable bool, fixed bool) ([][]int, string) {
	pos := map[int]int{}
	for i, id := range ids {
		pos[id] = i
	}
	base := make([][]int, len(baseIDs))
	for i, g := range baseIDs {
		for _, id := range g {
			base[i] = append(base[i], pos[id])
		}
	}
	how := func(groups [][]int, pred float64) string {
		kind := "query segmentation"
		if len(groups) > 1 {
			kind = "database segmentation"
		}
		return fmt.Sprintf("%s: %d batches x %d shard groups over %d workers (predicted makespan %.2fx a perfect split)",
			kind, len(batchLetters), len(groups), workers, pred)
	}
	if fixed || !segmentable || len(sizes) < 2 || len(batchLetters) == 0 {
		why := how(base, predict(base, sizes, batchLetters, workers, share))
		switch {
		case fixed:
			why += "; groups set by --group-bytes"
		case !segmentable && len(base) == 1:
			why += "; the database is one group: segmenting it could change the output (more sequences than -max-target-seqs, or E-values that depend on subject length)"
		}
		return baseIDs, why
	}
	best, bestPred := base, predict(base, sizes, batchLetters, workers, share)
	for g := len(base) + 1; g <= min(len(sizes), 2*workers); g++ {
		groups := balanced(sizes, g)
		if !fits(groups, sizes, base) {
			continue
		}
		// A group more must win by more than the noise of the model.
		if p := predict(groups, sizes, batchLetters, workers, share); p < bestPred*0.97 {
			best, bestPred = groups, p
		}
	}
	out := make([][]int, len(best))
	for i, g := range best {
		out[i] = make([]int, len(g))
		for j, s := range g {
			out[i][j] = ids[s]
		}
	}
	if len(best) == len(base) {
		out = baseIDs
	}
	return out, how(out, bestPred)
}

// fits: no group is larger than the largest base group (the cache's
// bound, when one made the base groups).
func fits(groups [][]int, sizes []int64, base [][]int) bool {
	if len(base) == 1 {
		return true
	}
	var limit int64
	for _, g := range base {
		var n int64
		for _, s := range g {
			n += sizes[s]
		}
		limit = max(limit, n)
	}
	for _, g := range groups {
		var n int64
		for _, s := range g {
			n += sizes[s]
		}
		if n > limit {
			return false
		}
	}
	return true
}

// balanced cuts shards 0..n-1, in order, into g runs of about equal bytes.
func balanced(sizes []int64, g int) [][]int {
	var total int64
	for _, s := range sizes {
		total += s
	}
	groups := make([][]int, 0, g)
	var cur []int
	var acc int64
	for i, s := range sizes {
		cur = append(cur, i)
		acc += s
		left := len(sizes) - i - 1
		need := g - len(groups) - 1
		if need > 0 && (acc*int64(g) >= total*int64(len(groups)+1) || left == need) {
			groups = append(groups, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// predict is the makespan of the batches x groups tasks, each costing its
// batch's letters times (its group's share of the database plus the
// repeated set-up), placed longest first on the least loaded worker, over
// that of the work split perfectly with no set-up repeated.
func predict(groups [][]int, sizes []int64, batchLetters []int64, workers int, share float64) float64 {
	var total float64
	for _, s := range sizes {
		total += float64(s)
	}
	if total == 0 || workers < 1 {
		return 1
	}
	frac := make([]float64, len(groups))
	for i, g := range groups {
		for _, s := range g {
			if s < len(sizes) {
				frac[i] += float64(sizes[s]) / total
			}
		}
	}
	if len(groups) == 1 {
		frac[0] = 1
	}
	var tasks []float64
	var work float64
	for _, l := range batchLetters {
		work += float64(l) * (1 + share)
		for _, f := range frac {
			tasks = append(tasks, float64(l)*(f+share))
		}
	}
	slices.SortFunc(tasks, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	load := make([]float64, workers)
	for _, t := range tasks {
		i := 0
		for j := range load {
			if load[j] < load[i] {
				i = j
			}
		}
		load[i] += t
	}
	return slices.Max(load) / (work / float64(workers))
}
