package engine

import (
	"slices"
	"sort"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// slowestKept is how many of the slowest tasks a summary keeps.
const slowestKept = 25

// taskStats keeps the task-time distribution and the slowest tasks.
type taskStats struct {
	hist    *Histogram
	slowest []TaskRecord // descending by Seconds, at most slowestKept
}

func newTaskStats() *taskStats {
	return &taskStats{hist: runrecord.NewHistogram(runrecord.TaskBounds())}
}

func (s *taskStats) add(r TaskRecord) {
	s.hist.Observe(r.Seconds)
	if len(s.slowest) == slowestKept && r.Seconds <= s.slowest[len(s.slowest)-1].Seconds {
		return
	}
	i := sort.Search(len(s.slowest), func(i int) bool { return s.slowest[i].Seconds < r.Seconds })
	s.slowest = slices.Insert(s.slowest, i, r)
	s.slowest = s.slowest[:min(len(s.slowest), slowestKept)]
}
