package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// Summary is the report as JSON (blastfleet report --format json): the
// run summary scripts read, as ElasticBLAST's run-summary is. Fields are
// added, never renamed: scripts depend on them.
type Summary struct {
	Campaign  string    `json:"campaign"`
	Namespace string    `json:"namespace,omitempty"`
	Phase     string    `json:"phase,omitempty"`
	Location  string    `json:"location"`
	Generated time.Time `json:"generated"`
	Program   string    `json:"program"`
	Database  string    `json:"database"`
	Queries   struct {
		Total   int   `json:"total"`
		Done    int   `json:"done"`
		Failed  int   `json:"failed"`
		Letters int64 `json:"letters"`
	} `json:"queries"`
	Chunks struct {
		Total     int `json:"total"`
		Committed int `json:"committed"`
		Leased    int `json:"leased"`
		Pending   int `json:"pending"`
		Failed    int `json:"failed"`
		Attempts  int `json:"attempts"`
		Retries   int `json:"retries"`
	} `json:"chunks"`
	Complete      bool                 `json:"complete"`
	FailedQueries []ledger.FailedQuery `json:"failedQueries,omitempty"`
	// Failures counts what the HTML page lists as failures.
	Failures int                 `json:"failures"`
	Sites    []ledger.SiteStatus `json:"sites,omitempty"`
	Runs     struct {
		Count  int            `json:"count"`
		States map[string]int `json:"states,omitempty"`
		Ranks  int            `json:"ranks"`
		// Times in seconds: from the first run's start to the latest
		// record; BLAST's own time over all workers; workers × wall
		// time (BLAST seconds over it is the parallel efficiency).
		ElapsedSeconds     float64   `json:"elapsedSeconds"`
		BlastSeconds       float64   `json:"blastSeconds"`
		WorkerWallSeconds  float64   `json:"workerWallSeconds"`
		ParallelEfficiency float64   `json:"parallelEfficiency,omitempty"`
		BytesWritten       int64     `json:"bytesWritten"`
		CacheHits          int64     `json:"cacheHits"`
		CacheMisses        int64     `json:"cacheMisses"`
		First              time.Time `json:"firstStarted,omitzero"`
		Latest             time.Time `json:"latestUpdate,omitzero"`
		// CoreSeconds is what the runs held, worker slots × wall time, in
		// all and by site ("" for runs that named none).
		CoreSeconds     float64            `json:"coreSeconds"`
		SiteCoreSeconds map[string]float64 `json:"siteCoreSeconds,omitempty"`
	} `json:"runs"`
}

// Summary gathers the report's numbers.
func (r *Report) Summary() *Summary {
	s := &Summary{Campaign: r.Meta.Name, Namespace: r.Meta.Namespace, Phase: r.Meta.Phase, Location: r.Meta.Location,
		Generated: r.Meta.Generated.UTC()}
	if p := r.Plan; p != nil {
		s.Program, s.Database = string(p.Search.Program), p.Database.Name
		s.Queries.Letters = p.Queries.Letters
	}
	if st := r.Status; st != nil {
		s.Queries.Total, s.Queries.Done, s.Queries.Failed = st.Queries, st.QueriesDone, st.QueriesFailed
		c := &s.Chunks
		c.Total, c.Committed, c.Leased, c.Pending, c.Failed, c.Attempts, c.Retries =
			st.Chunks, st.Committed, st.Leased, st.Pending, st.Failed, st.Attempts, st.Retries
		s.Complete, s.FailedQueries, s.Sites = st.Complete, st.FailedQueries, st.Sites
	}
	s.Failures = buildFailures(r).Count()
	t := sumRuns(r.Runs, r.Meta.Generated)
	runs := &s.Runs
	runs.Count, runs.Ranks = t.Runs, t.Ranks
	runs.CoreSeconds, runs.SiteCoreSeconds = t.Cost.CoreSeconds, t.Cost.Sites
	runs.States = map[string]int{}
	for _, run := range r.Runs {
		runs.States[run.State]++
	}
	runs.ElapsedSeconds, runs.BlastSeconds, runs.WorkerWallSeconds = t.Elapsed(), t.BlastSeconds, t.WorkerWall
	if t.WorkerWall > 0 {
		runs.ParallelEfficiency = t.BlastSeconds / t.WorkerWall
	}
	runs.BytesWritten, runs.CacheHits, runs.CacheMisses = t.BytesWritten, t.Hits, t.Misses
	runs.First, runs.Latest = t.First.UTC(), t.Latest.UTC()
	return s
}

// WriteJSON writes the Summary, indented.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.Summary()); err != nil {
		return fmt.Errorf("writing the summary of campaign %s: %w", r.Meta.Name, err)
	}
	return nil
}
