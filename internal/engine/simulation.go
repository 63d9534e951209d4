package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/simulate"
)

// Simulation is --backend simulate: S3aSim's model (internal/engine/simulate)
// stands in for BLAST, so output strategies and schedules can be measured
// with many ranks on few cores. Every rank builds the same model from the
// same flags, and a query's hits depend only on the seed and the query's
// index, so the output is the same whatever the ranks and schedule.
type Simulation struct {
	Model *simulate.Model
	Spend simulate.Spend
	// Generate: the queries are the model's own (its QueryCount,
	// --sim-queries), not read from --queries.
	Generate bool
}

func (s *Simulation) validate(c *Config) error {
	switch {
	case s.Model == nil:
		return fmt.Errorf("--backend simulate: no model configured")
	case s.Generate && c.Queries != "":
		return fmt.Errorf("--sim-queries and --queries: give one (generated or read queries)")
	case s.Generate && c.Campaign != nil:
		return fmt.Errorf("--sim-queries cannot be used with --campaign: the plan names the queries")
	case s.Generate && s.Model.Config().QueryCount < 1:
		return fmt.Errorf("--sim-queries must be >= 1")
	}
	if c.Format != nil {
		if err := simulate.CheckFormat(c.Format); err != nil {
			return fmt.Errorf("--outfmt: %w", err)
		}
	}
	return nil
}

// simGroups groups the simulated shards as shardGroups groups real ones,
// with a shard's letters standing for its bytes (--group-bytes 1: one
// shard per task, as S3aSim's (query, fragment) tasks).
func simGroups(db *simulate.Database, groupBytes int64) [][]int {
	sizes := make([]int64, db.Shards())
	for s := range sizes {
		sizes[s] = db.ShardLetters(s)
	}
	return groupBySize(sizes, groupBytes)
}

// setupSim is the master's setup under simulate: no manifest, the shard
// groups of the model's database, and the queries generated or read.
// It returns the queries object's SHA-256 ("" when generated).
func (m *master) setupSim(ctx context.Context) (string, error) {
	sim := m.cfg.Sim
	db := sim.Model.Database()
	m.groups = simGroups(db, m.cfg.GroupBytes)
	m.shards = db.Shards()
	if !sim.Generate {
		var sum string
		var err error
		m.queries, m.letters, sum, err = loadQueries(ctx, m.cfg.Queries, m.cfg.Program)
		return sum, err
	}
	for _, q := range sim.Model.Queries() {
		m.queries = append(m.queries, query{ID: q.ID, Defline: q.ID, Len: q.Len})
		m.letters += int64(q.Len)
	}
	return "", nil
}

// runSimTask is runTask under simulate: the model's hits for the block
// against the group, rendered and parsed as BLAST output would be, after
// spending the model's compute time. Generating the hits counts as part
// of that time, so a task takes what the model says unless generating
// alone takes longer.
func (w *worker) runSimTask(ctx context.Context, a *assignMsg) (r taskResult) {
	r.assign = a
	if err := injectedFailure(a.IDs); err != nil {
		r.err = err
		return r
	}
	if len(a.Lens) != len(a.IDs) {
		r.err = fmt.Errorf("simulated task %d: %d query lengths for %d queries", a.Task, len(a.Lens), len(a.IDs))
		return r
	}
	r.started = time.Now()
	r.fetched = r.started // nothing to fetch
	qs := make([]simulate.Query, len(a.IDs))
	for i, id := range a.IDs {
		qs[i] = simulate.Query{ID: id, Len: a.Lens[i]}
	}
	model := w.cfg.Sim.Model
	res, err := model.Search(a.First, qs, a.Shards, w.cfg.Format, merge.Options{
		MaxTargetSeqs:          w.cfg.shardTargetSeqs(int64(model.Database().Sequences()), a.Groups),
		Evalue:                 w.cfg.Evalue,
		LengthDependentEvalues: w.cfg.Program.LengthDependentEvalues()})
	if err != nil {
		r.err = err
		return r
	}
	if err := w.cfg.Sim.Spend.Wait(ctx, res.Compute-time.Since(r.started)); err != nil {
		r.err = fmt.Errorf("simulated task %d: %w", a.Task, err)
		return r
	}
	r.ended = time.Now()
	r.lines = make([][]byte, len(res.Records))
	r.hits = make([]hitMeta, len(res.Records))
	for i, rec := range res.Records {
		r.lines[i] = rec.Text
		r.hits[i] = hitMeta{Query: int32(rec.Query), Evalue: rec.Evalue, Bitscore: rec.Bitscore, Score: rec.Score,
			SLen: rec.SLen, Ordinal: rec.Ordinal, Size: int32(len(rec.Text))}
	}
	return r
}
