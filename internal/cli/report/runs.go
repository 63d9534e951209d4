package report

import "github.com/blastfleet/blastfleet/internal/storage/runrecord"

// runRow is one run in the runs table.
type runRow struct {
	Holder, Site, Partition   string
	State                     string
	Started, Duration         string
	Ranks, Tasks              int
	QueriesWritten, Committed int
}

func buildRuns(runs []runrecord.RunRecord) []runRow {
	out := make([]runRow, 0, len(runs))
	for _, r := range runs {
		row := runRow{Holder: r.Holder, Site: r.Site, Partition: r.Partition, State: r.State, Started: stamp(r.Started)}
		wall := r.Updated.Sub(r.Started).Seconds()
		if s := r.Summary; s != nil {
			wall = max(wall, s.WallSeconds)
			row.Ranks, row.Tasks, row.QueriesWritten, row.Committed = len(s.Ranks), s.Tasks, s.QueriesWritten, s.ChunksCommitted
		}
		row.Duration = seconds(max(0, wall))
		out = append(out, row)
	}
	return out
}
