package engine

// A task pays a fixed cost besides its search: BLAST's process start, the
// alias and the database opened, the query file written, the output
// parsed (about 0.06 s here, docs/benchmarks.md). The master learns it from
// the tasks themselves: a task's BLAST time against its letters (weighted
// by its group's share of the database) is a line whose intercept is the
// fixed cost and whose slope the seconds per letter, and blocks are then
// kept large enough for the fixed cost to stay under maxOverheadShare of a
// task's time.

// maxOverheadShare bounds a task's fixed cost against its time.
const maxOverheadShare = 0.02

// overheadSamples is how many tasks the fit needs before it is trusted.
const overheadSamples = 4

// overheadModel is a least-squares fit of seconds = a + b x letters.
type overheadModel struct {
	n                    int
	sx, sy, sxx, sxy     float64
	minX, maxX           float64
	intercept, perLetter float64
}

// add records a task of letters weighted letters that took seconds.
func (o *overheadModel) add(letters, seconds float64) {
	if letters <= 0 || seconds <= 0 {
		return
	}
	if o.n == 0 || letters < o.minX {
		o.minX = letters
	}
	o.maxX = max(o.maxX, letters)
	o.n++
	o.sx += letters
	o.sy += seconds
	o.sxx += letters * letters
	o.sxy += letters * seconds
	d := float64(o.n)*o.sxx - o.sx*o.sx
	// Tasks of one size say nothing of the intercept: wait for spread.
	if o.n < overheadSamples || o.maxX < 1.5*o.minX || d <= 0 {
		return
	}
	b := (float64(o.n)*o.sxy - o.sx*o.sy) / d
	a := (o.sy - b*o.sx) / float64(o.n)
	if b <= 0 {
		return
	}
	o.intercept, o.perLetter = max(a, 0), b
}

// known says whether the fit has an estimate.
func (o *overheadModel) known() bool { return o.perLetter > 0 }

// minLetters is the smallest block (in weighted letters) whose fixed cost
// stays under maxOverheadShare of its time; 0 while unknown.
func (o *overheadModel) minLetters() int64 {
	if !o.known() {
		return 0
	}
	return int64(o.intercept * (1 - maxOverheadShare) / maxOverheadShare / o.perLetter)
}

// groupShares are each group's share of the database's bytes (equal
// shares when the sizes are unknown), worked out once the groups are.
func groupShares(groups [][]int, ids []int, sizes []int64) []float64 {
	shares := make([]float64, len(groups))
	size := map[int]int64{}
	var total int64
	for i, id := range ids {
		size[id] = sizes[i]
		total += sizes[i]
	}
	for g, shards := range groups {
		shares[g] = 1 / float64(len(groups))
		if total > 0 && len(groups) > 1 {
			var in int64
			for _, id := range shards {
				in += size[id]
			}
			shares[g] = float64(in) / float64(total)
		}
	}
	return shares
}

// minBlockLetters is the smallest block, in query letters, whose tasks
// keep their fixed cost under maxOverheadShare (0 while unknown): a
// block's task on a group of the average share searches letters/groups.
func (m *master) minBlockLetters() int64 {
	return m.overhead.minLetters() * int64(max(len(m.head), 1))
}

// estimate is a task's expected seconds for weighted letters: the fit's
// line once known, else the mean seconds per letter so far (0: no task
// done yet).
func (o *overheadModel) estimate(letters float64) float64 {
	switch {
	case o.known():
		return o.intercept + o.perLetter*letters
	case o.n > 0 && o.sx > 0:
		return o.sy / o.sx * letters
	}
	return 0
}
