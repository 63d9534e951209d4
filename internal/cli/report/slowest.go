package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// slowestShown is how many of the slowest tasks the page lists.
const slowestShown = 25

// slowTask is one of the slowest tasks with the run it ran in.
type slowTask struct {
	runrecord.TaskRecord
	Run string
}

// mergeSlowest takes every run's slowest tasks and keeps the slowest.
func mergeSlowest(runs []runrecord.RunRecord) []slowTask {
	var all []slowTask
	for i := range runs {
		if runs[i].Summary == nil {
			continue
		}
		for _, t := range runs[i].Summary.SlowestTasks {
			all = append(all, slowTask{TaskRecord: t, Run: runName(&runs[i])})
		}
	}
	slices.SortStableFunc(all, func(a, b slowTask) int { return cmp.Compare(b.Seconds, a.Seconds) })
	return all[:min(len(all), slowestShown)]
}

// ShardList lists the task's shards compactly: "0-3, 7".
func (t slowTask) ShardList() string {
	s := slices.Clone(t.Shards)
	slices.Sort(s)
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", s[i], s[j]))
		} else {
			parts = append(parts, fmt.Sprint(s[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// QueryRange is the block's first and last query id, or the one query.
func (t slowTask) QueryRange() string {
	if t.Queries <= 1 || t.FirstQuery == t.LastQuery {
		return t.FirstQuery
	}
	return t.FirstQuery + " … " + t.LastQuery
}

// Time is the task's seconds for people.
func (t slowTask) Time() string { return seconds(t.Seconds) }
