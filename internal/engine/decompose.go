package engine

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
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
// A mix is often best: the first batches whole against the database, as
// one BLAST+ run scans it, and only the last ones cut by groups, so that
// the workers finish together (three megablast batches of 2, 2 and 0.8 M
// letters on 2 workers: 1.17x a perfect split as query segmentation, 1.11x
// with every batch in halves of the database, 1.02x with only the last).

// setupShare is the part of a batch's search that is repeated for every
// group it is searched against, as a share of the batch's whole search.
// Measured on 2 cores (docs/benchmarks.md): a megablast
// batch of 2 M letters against each half of a 44 Mb database took 1.12x
// its time against the whole (5 rounds, one thread, an idle machine: 0.13
// of the work repeated), dc-megablast 1.07x; four blastp shards cost 17%
// more than one database (0.06 per group).
func setupShare(p blast.Program, opts []blast.Option) float64 {
	if p != blast.Blastn {
		return 0.06
	}
	switch blast.BlastnTask(opts) {
	case "megablast":
		return 0.13
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

// plan is a decomposition: the groups every batch before tailFrom is
// searched against (head), and those of the batches from tailFrom on
// (tail, finer: the last batches cut into more tasks so that workers
// finish together). groups lists every group's shard ids, head's first.
type plan struct {
	groups   [][]int
	head     []int
	tail     []int
	tailFrom int // a batch index; the number of batches when no tail
	why      string
}

// groupsOf are the groups batch i is searched against.
func (p plan) groupsOf(batch int) []int {
	if batch >= p.tailFrom && len(p.tail) > 0 {
		return p.tail
	}
	return p.head
}

// workload is what decompose weighs.
type workload struct {
	sizes   []int64 // the shards' bytes, in order
	ids     []int   // the shards' ids, in order
	base    [][]int // the groups --group-bytes and --cache-bytes allow (shard ids)
	batches []int64 // the letters of each BLAST+ batch
	workers int
	share   float64 // setupShare
	// segmentable: the database may be cut finer (Config.segmentable);
	// fixed: --group-bytes set the groups; mixed: the head and the tail
	// of the batches may differ (the dynamic schedule, which hands tasks
	// out in order); lpt: few batches go out largest first
	// (master.addBatches: the dynamic schedule with guided blocks).
	segmentable, fixed, mixed, lpt bool
}

// decompose chooses the shard groups: base, or, when the database may be
// segmented, base for the first batches and g contiguous groups balanced
// by bytes for the last ones (or for all of them, as for a few long
// queries), whichever minimises the predicted makespan.
func decompose(w workload) plan {
	sizes, ids, baseIDs, batchLetters, workers, share := w.sizes, w.ids, w.base, w.batches, w.workers, w.share
	pred := func(head, tail [][]int, from int) float64 {
		return predict(head, tail, sizes, batchLetters, batchOrder(batchLetters, from, workers, w.lpt), from, workers, share)
	}
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
	n := len(batchLetters)
	whole := plan{groups: baseIDs, head: seq(0, len(baseIDs)), tailFrom: n}
	only := func(why string) plan {
		p := whole
		p.why = describe(p, n, workers, pred(base, nil, n)) + why
		return p
	}
	switch {
	case w.fixed:
		return only("; groups set by --group-bytes")
	case !w.segmentable || len(sizes) < 2 || n == 0:
		why := ""
		if !w.segmentable && len(base) == 1 {
			why = "; the database is one group: segmenting it could change the output (more sequences than -max-target-seqs, or E-values that depend on subject length)"
		}
		return only(why)
	}
	var best [][]int
	bestFrom, bestPred := n, pred(base, nil, n)
	for g := len(base) + 1; g <= min(len(sizes), 2*workers); g++ {
		groups := balanced(sizes, g)
		if !fits(groups, sizes, base) {
			continue
		}
		// The fewest tail batches first; a finer plan must win by more
		// than the noise of the model.
		for from := n - 1; from >= 0; from-- {
			if from > 0 && !w.mixed {
				continue
			}
			if p := pred(base, groups, from); p < bestPred*0.97 {
				best, bestFrom, bestPred = groups, from, p
			}
		}
	}
	p := whole
	if best != nil {
		p.tail = seq(len(baseIDs), len(baseIDs)+len(best))
		p.tailFrom = bestFrom
		for _, g := range best {
			shards := make([]int, len(g))
			for j, s := range g {
				shards[j] = ids[s]
			}
			p.groups = append(p.groups, shards)
		}
		if bestFrom == 0 {
			// Every batch is searched in the fine groups: they are the plan.
			p.groups, p.head, p.tail = p.groups[len(baseIDs):], seq(0, len(best)), nil
			p.tailFrom = n
		}
	}
	p.why = describe(p, n, workers, bestPred)
	return p
}

// describe says what a plan does, for the run summary and the report.
func describe(p plan, batches, workers int, pred float64) string {
	kind := "query segmentation"
	if len(p.head) > 1 {
		kind = "database segmentation"
	}
	tail := batches - p.tailFrom
	if len(p.tail) == 0 || tail <= 0 {
		return fmt.Sprintf("%s: %d batches x %d shard groups over %d workers (predicted makespan %.2fx a perfect split)",
			kind, batches, len(p.head), workers, pred)
	}
	return fmt.Sprintf("%s, then database segmentation for the last %d: %d batches x %d shard groups, then %d x %d, over %d workers (predicted makespan %.2fx a perfect split)",
		kind, tail, p.tailFrom, len(p.head), tail, len(p.tail), workers, pred)
}

// seq is from, from+1, ..., to-1.
func seq(from, to int) []int {
	s := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
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
		// Cut where the running total comes nearest the group's end: at
		// or past it, or short of it by less than the next shard would
		// pass it.
		end := total * int64(len(groups)+1)
		short := end - acc*int64(g)
		if need > 0 && (short <= 0 || (left > 0 && short < (acc+sizes[i+1])*int64(g)-end) || left == need) {
			groups = append(groups, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// batchOrder is the order the master hands batches out in: first to
// last, or with lpt and few batches largest first, the head's (before
// from) before the tail's.
func batchOrder(batchLetters []int64, from, workers int, lpt bool) []int {
	order := seq(0, len(batchLetters))
	if lpt && len(batchLetters) <= lptBatchesPerWorker*workers {
		from = min(from, len(order))
		for _, part := range [][]int{order[:from], order[from:]} {
			slices.SortStableFunc(part, func(a, b int) int { return cmp.Compare(batchLetters[b], batchLetters[a]) })
		}
	}
	return order
}

// predict is the makespan of the tasks, over that of the work split
// perfectly with no set-up repeated: batches before from are searched
// against head, the others against tail; a task costs its batch's letters
// times its group's share of the database plus the repeated set-up, and
// tasks go in the scheduler's order (batches in order, each a list of
// batch indexes) to the first worker free.
func predict(head, tail [][]int, sizes []int64, batchLetters []int64, order []int, from, workers int, share float64) float64 {
	var total float64
	for _, s := range sizes {
		total += float64(s)
	}
	if total == 0 || workers < 1 {
		return 1
	}
	fracs := func(groups [][]int) []float64 {
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
		return frac
	}
	headFrac, tailFrac := fracs(head), fracs(tail)
	load := make([]float64, workers)
	var work float64
	for _, b := range order {
		l := batchLetters[b]
		work += float64(l) * (1 + share)
		frac := headFrac
		if b >= from {
			frac = tailFrac
		}
		for _, f := range frac {
			i := 0
			for j := range load {
				if load[j] < load[i] {
					i = j
				}
			}
			load[i] += float64(l) * (f + share)
		}
	}
	return slices.Max(load) / (work / float64(workers))
}
