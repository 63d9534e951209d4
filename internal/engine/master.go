package engine

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/blastfleet/blastfleet/internal/manifest"
	"github.com/blastfleet/blastfleet/internal/merge"
	"github.com/blastfleet/blastfleet/internal/objstore"
	"github.com/blastfleet/blastfleet/internal/output"
	"github.com/blastfleet/blastfleet/internal/scheduler"
	"github.com/blastfleet/blastfleet/internal/transport"
)

type blockState struct {
	first, end int
	tasksLeft  int
	tasks      []int
	hits       [][]merge.Hit // per query of the block
}

type taskInfo struct {
	block, group, worker int
}

// pendingLine is a kept line waiting to be written.
type pendingLine struct {
	worker, task, index, size int
}

type master struct {
	cfg     *Config
	tr      transport.Transport
	workers int
	db      *manifest.Manifest
	groups  [][]int
	queries []query
	letters int64

	blk    *blocker
	sched  *scheduler.Scheduler
	blocks []*blockState
	tasks  []taskInfo
	cached map[int]map[int]bool // worker -> shard groups it caches
	idle   []int

	mergeOpts  merge.Options
	merged     int // blocks merged, in order
	pending    []pendingLine
	releasable []int // tasks of merged blocks whose lines may still be pending
	pendSize   int64
	threshold  int64
	offset     int64
	written    int // blocks issued to writers
	inFlight   int
	parts      []objstore.Part
	hits       int64

	target output.Target
	clock  *clock
	sum    Summary
}

// runMaster runs rank 0 until the output is complete or the run fails.
func runMaster(ctx context.Context, cfg *Config, tr transport.Transport) (*Summary, error) {
	m := &master{cfg: cfg, tr: tr, workers: tr.Size() - 1, clock: newClock(), cached: map[int]map[int]bool{}}
	if m.workers < 1 {
		return nil, fmt.Errorf("the engine needs at least one worker (run with --workers W, or mpirun -np >= 2)")
	}
	if err := m.setup(ctx); err != nil {
		m.broadcast(&envelope{Setup: &setupMsg{Error: err.Error()}})
		m.collectSummaries(ctx)
		return nil, err
	}
	m.clock.since("setup", m.clock.start)
	m.broadcast(&envelope{Setup: &setupMsg{Target: m.target}})
	err := m.loop(ctx)
	if err != nil {
		m.broadcast(&envelope{Stop: &stopMsg{Abort: err.Error()}})
		m.collectSummaries(ctx)
		if aerr := output.Abort(context.WithoutCancel(ctx), m.target); aerr != nil {
			cfg.Log.Error(aerr, "cleaning up output")
		}
		return nil, err
	}
	m.broadcast(&envelope{Stop: &stopMsg{}})
	m.collectSummaries(ctx)
	t := time.Now()
	sort.Slice(m.parts, func(i, j int) bool { return m.parts[i].Number < m.parts[j].Number })
	if err := output.Finish(ctx, m.target, m.parts); err != nil {
		return nil, fmt.Errorf("finishing output %s: %w", cfg.Output, err)
	}
	m.clock.since("write", t)
	var self RankSummary
	self.Rank, self.Role = 0, "master"
	m.clock.finish(&self)
	m.sum.Ranks = append(m.sum.Ranks, self)
	m.sum.WallSeconds = self.WallSeconds
	m.sum.Hits, m.sum.BytesWritten = m.hits, m.offset
	m.sum.finish()
	return &m.sum, nil
}

func (m *master) setup(ctx context.Context) error {
	cfg := m.cfg
	dbStore, err := objstore.Open(ctx, cfg.Database)
	if err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	if m.db, err = manifest.Load(ctx, dbStore); err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	if string(m.db.Type) != cfg.Program.DBType() {
		return fmt.Errorf("--program %s searches a %s database, but %s is %s", cfg.Program, cfg.Program.DBType(), cfg.Database, m.db.Type)
	}
	if m.groups, err = shardGroups(m.db, cfg.GroupBytes, cfg.CacheBytes); err != nil {
		return err
	}
	if m.queries, m.letters, err = loadQueries(ctx, cfg.Queries, cfg.Program); err != nil {
		return err
	}
	m.blk = &blocker{queries: m.queries, left: m.letters, fixed: cfg.BlockLetters, workers: m.workers}
	m.sched = scheduler.New(len(m.groups))
	m.mergeOpts = merge.Options{MaxTargetSeqs: cfg.MaxTargetSeqs, Evalue: cfg.Evalue,
		LengthDependentEvalues: cfg.Program.LengthDependentEvalues()}
	m.threshold = max(cfg.WriteBuffer, output.MinBlock(cfg.Output))
	if m.target, err = output.Begin(ctx, cfg.Output); err != nil {
		return err
	}
	m.sum = Summary{Program: string(cfg.Program), Output: cfg.Output, Strategy: cfg.Strategy.Name(),
		TopHits: cfg.TopHits.String(), Queries: len(m.queries), QueryLetters: m.letters,
		Shards: len(m.db.Shards), ShardGroups: len(m.groups)}
	cfg.Log.Info("search starting", "queries", len(m.queries), "letters", m.letters,
		"shards", len(m.db.Shards), "groups", len(m.groups), "workers", m.workers)
	return nil
}

func (m *master) broadcast(e *envelope) {
	data := encode(e)
	for w := 1; w <= m.workers; w++ {
		_ = m.tr.Send(w, data)
	}
}

func (m *master) send(w int, e *envelope) error { return m.tr.Send(w, encode(e)) }

// finished: every query merged and every block written.
func (m *master) finished() bool {
	return m.blk.done() && m.sched.Unassigned() == 0 && m.merged == len(m.blocks) && m.inFlight == 0 && m.pendSize == 0
}

func (m *master) loop(ctx context.Context) error {
	progress := time.NewTicker(10 * time.Second)
	defer progress.Stop()
	for !m.finished() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-progress.C:
			m.cfg.Log.Info("progress", "queriesMerged", m.mergedQueries(), "queries", len(m.queries),
				"tasks", len(m.tasks), "bytesWritten", m.offset)
		case msg, ok := <-m.tr.Recv():
			if !ok {
				return fmt.Errorf("transport closed")
			}
			if err := m.handle(ctx, msg); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *master) mergedQueries() int {
	if m.merged == 0 {
		return 0
	}
	return m.blocks[m.merged-1].end
}

func (m *master) handle(ctx context.Context, msg transport.Message) error {
	e, err := decode(msg.Data)
	if err != nil {
		return fmt.Errorf("from rank %d: %w", msg.From, err)
	}
	switch {
	case e.Hello != nil:
		m.setCached(msg.From, e.Hello.Cached)
		m.idle = append(m.idle, msg.From)
		return m.dispatch()
	case e.Done != nil:
		m.setCached(msg.From, e.Done.Cached)
		m.record(msg.From, e.Done)
		m.idle = append(m.idle, msg.From)
		if err := m.dispatch(); err != nil {
			return err
		}
		return m.mergeReady()
	case e.Failed != nil:
		if e.Failed.Task < 0 {
			return fmt.Errorf("rank %d: %s", msg.From, e.Failed.Error)
		}
		t := m.tasks[e.Failed.Task]
		b := m.blocks[t.block]
		return fmt.Errorf("query block %d (queries %s..%s) against shard group %d (shards %v) on rank %d: %s",
			t.block, m.queries[b.first].ID, m.queries[b.end-1].ID, t.group, m.groups[t.group], msg.From, e.Failed.Error)
	case e.Written != nil:
		if e.Written.Error != "" {
			return fmt.Errorf("rank %d writing output block %d: %s", msg.From, e.Written.Block, e.Written.Error)
		}
		m.inFlight--
		if output.IsObject(m.cfg.Output) {
			m.parts = append(m.parts, objstore.Part{Number: e.Written.Part, ETag: e.Written.ETag, Size: e.Written.Size})
		}
		return nil
	case e.Summary != nil:
		return fmt.Errorf("rank %d stopped early", msg.From)
	}
	return fmt.Errorf("unexpected message from rank %d", msg.From)
}

func (m *master) setCached(w int, groups []int) {
	set := map[int]bool{}
	for _, g := range groups {
		set[g] = true
	}
	m.cached[w] = set
}

// dispatch hands tasks to idle workers (Algorithm 1), adding query blocks
// before the unassigned tasks run out so no worker waits at a boundary.
func (m *master) dispatch() error {
	for len(m.idle) > 0 {
		for m.sched.Unassigned() < m.workers && !m.blk.done() {
			m.addBlock()
		}
		w := m.idle[0]
		t, ok := m.sched.Next(func(g int) bool { return m.cached[w][g] })
		if !ok {
			return nil
		}
		m.idle = m.idle[1:]
		id := len(m.tasks)
		m.tasks = append(m.tasks, taskInfo{block: t.Block, group: t.Group, worker: w})
		b := m.blocks[t.Block]
		b.tasks = append(b.tasks, id)
		qs := m.queries[b.first:b.end]
		ids := make([]string, len(qs))
		for i, q := range qs {
			ids[i] = q.ID
		}
		if err := m.send(w, &envelope{Assign: &assignMsg{Task: id, Block: t.Block, Group: t.Group,
			First: b.first, IDs: ids, FASTA: blockFASTA(qs), Shards: m.groups[t.Group]}}); err != nil {
			return err
		}
	}
	return nil
}

func (m *master) addBlock() {
	first, end := m.blk.take()
	id := len(m.blocks)
	m.blocks = append(m.blocks, &blockState{first: first, end: end, tasksLeft: len(m.groups),
		hits: make([][]merge.Hit, end-first)})
	m.sched.Add(id)
	m.sum.Blocks++
}

func (m *master) record(w int, d *doneMsg) {
	t := m.tasks[d.Task]
	b := m.blocks[t.block]
	for i, h := range d.Hits {
		b.hits[h.Query] = append(b.hits[h.Query], merge.Hit{Evalue: h.Evalue, Bitscore: h.Bitscore,
			Score: h.Score, SLen: h.SLen,
			Ordinal: h.Ordinal, Size: int(h.Size), Source: d.Task, Index: i})
	}
	b.tasksLeft--
	m.sum.Tasks++
}

// mergeReady merges finished blocks in query order and plans their writes.
func (m *master) mergeReady() error {
	start := time.Now()
	defer func() { m.clock.since("merge", start) }()
	for m.merged < len(m.blocks) && m.blocks[m.merged].tasksLeft == 0 {
		b := m.blocks[m.merged]
		for _, hits := range b.hits {
			for _, h := range merge.Merge(hits, m.mergeOpts) {
				m.pending = append(m.pending, pendingLine{worker: m.tasks[h.Source].worker, task: h.Source, index: h.Index, size: h.Size})
				m.pendSize += int64(h.Size)
				m.hits++
			}
			if m.pendSize >= m.threshold {
				if err := m.flush(); err != nil {
					return err
				}
			}
		}
		b.hits = nil
		m.merged++
		if m.merged == len(m.blocks) && m.blk.done() && m.sched.Unassigned() == 0 {
			if err := m.flush(); err != nil {
				return err
			}
		}
		// A task's lines may be freed once every kept line is on its way
		// to a writer: now if nothing is pending, else at the next flush.
		m.releasable = append(m.releasable, b.tasks...)
		if m.pendSize == 0 {
			if err := m.release(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush hands the pending lines to a writer chosen by the strategy.
func (m *master) flush() error {
	if m.pendSize == 0 {
		return nil
	}
	blk := &output.Block{Seq: m.written, Offset: m.offset, Size: m.pendSize, Held: map[int]int64{}}
	for _, l := range m.pending {
		blk.Held[l.worker] += int64(l.size)
	}
	writer := m.cfg.Strategy.Writer(blk)
	refs := map[int][]lineRef{}
	var rel int64
	for _, l := range m.pending {
		refs[l.worker] = append(refs[l.worker], lineRef{Task: l.task, Index: l.index, RelOffset: rel})
		rel += int64(l.size)
	}
	if err := m.send(writer, &envelope{Write: &writeMsg{Block: blk.Seq, Offset: blk.Offset,
		Part: blk.Seq + 1, Size: blk.Size, Holders: len(refs)}}); err != nil {
		return err
	}
	for w, lines := range refs {
		if err := m.send(w, &envelope{Contribute: &contributeMsg{Block: blk.Seq, Writer: writer, Lines: lines}}); err != nil {
			return err
		}
	}
	m.written++
	m.inFlight++
	m.offset += m.pendSize
	m.pending, m.pendSize = nil, 0
	return m.release()
}

func (m *master) release() error {
	byWorker := map[int][]int{}
	for _, t := range m.releasable {
		w := m.tasks[t].worker
		byWorker[w] = append(byWorker[w], t)
	}
	for w, ts := range byWorker {
		if err := m.send(w, &envelope{Release: &releaseMsg{Tasks: ts}}); err != nil {
			return err
		}
	}
	m.releasable = nil
	return nil
}

// collectSummaries waits for every worker's summary after a stop.
func (m *master) collectSummaries(ctx context.Context) {
	got := map[int]bool{}
	timeout := time.After(5 * time.Minute)
	for len(got) < m.workers {
		select {
		case <-ctx.Done():
			return
		case <-timeout:
			m.cfg.Log.Info("workers did not report", "missing", m.workers-len(got))
			return
		case msg, ok := <-m.tr.Recv():
			if !ok {
				return
			}
			e, err := decode(msg.Data)
			if err != nil || e.Summary == nil {
				continue
			}
			got[msg.From] = true
			m.sum.Ranks = append(m.sum.Ranks, *e.Summary)
		}
	}
}
