package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/engine/scheduler"
	"github.com/blastfleet/blastfleet/internal/engine/transport"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

type blockState struct {
	unit       *unit
	first, end int   // global query indexes
	letters    int64 // of its queries
	batch      int   // B of its BLAST+ batches (its unit's)
	groups     []int // the shard groups it is searched against
	tasksLeft  int
	tasks      []int
	owner      int           // static schedules: the only worker it goes to; 0: any
	hits       [][]merge.Hit // per query of the block
	// assign is what every task of the block sends (ids, FASTA or lengths),
	// built at its first task and dropped once its last is assigned.
	assign *assignMsg
	// Reports: the kept subjects per query, until the regeneration is
	// assigned; its task; its pieces' sizes once done (regen.go).
	regen       []regenQuery
	regenTask   int
	pieces      []int
	regenerated bool
	// ties: per query, the subjects a tie-break search orders, until it
	// is assigned; tieWait: the block waits for it (ties.go).
	ties    []regenQuery
	tieWait bool
}

type taskInfo struct {
	block, group, worker int
	regen                bool // a regeneration (group -1)
	ties                 bool // a regeneration that is a tie-break search
}

type master struct {
	cfg     *Config
	tr      transport.Transport
	workers int
	shards  int
	groups  [][]int
	queries []query
	letters int64
	// The database's shards (ids, bytes, in order) and sequences, and how
	// the search was cut into tasks (decompose.go).
	shardIDs      []int
	shardSizes    []int64
	dbSequences   int64
	decomposition string
	// Blocks are searched against head, or from the query tailFrom on
	// (the last batches of a mixed decomposition) against tail.
	head, tail []int
	tailFrom   int
	// overhead fits tasks' fixed cost (overhead.go); firstTask is when
	// the first task was assigned.
	overhead  overheadModel
	shares    []float64 // each group's share of the database (groupShares)
	firstTask time.Time
	// batchStart marks the queries that start a BLAST+ batch of the
	// whole query file (and len(queries), its end).
	batchStart map[int]bool

	source unitSource
	// samHeader makes a SAM output's header from its body (sam.go); nil
	// for other formats.
	samHeader func(io.Reader) ([]byte, error)
	// Storage work beside the loop: leasing and failure records in one
	// lane, output commits, aborts and run records in the other, so a
	// slow commit does not hold up the next lease.
	leasing, storing *lane
	completions      chan func() error // from both lanes, run by the loop
	acquiring        bool              // a take is in the lane
	drained          bool              // the source has nothing more
	units            []*unit           // active, in the order they were taken
	nextID           int
	retry            time.Time // when the source may have work again

	regens     []int       // blocks whose regeneration waits for a worker
	shardGroup map[int]int // shard -> its group (groupOf)
	sched      *scheduler.Scheduler
	own        map[int]*scheduler.Scheduler // static schedules: per worker
	blocks     []*blockState
	tasks      []taskInfo
	cached     map[int]map[int]bool // worker -> shard groups it caches
	idle       []int

	mergeOpts merge.Options
	threshold int64
	clock     *clock
	sum       Summary
	self      RankSummary  // the master's own account
	reported  map[int]bool // workers whose summaries are in
	metrics   *enginemetrics.Rank
	taskStats *taskStats
	run       *runRecorder // campaigns: the run record beside the ledger

	held     map[int][][]byte // master-writing: task -> line texts
	nextColl int              // worker-collective: the next collective's id
	syncs    []*syncPoint     // --query-sync: open barriers, oldest first
	nextSync int
	deferred []deferredMsg // held back while a barrier is open
	stopRun  func()        // stops the loop as a SIGTERM does
	// hosts is each worker's machine (its hello), inFlight its task under
	// way: the last task may take idle slots of its host (tail.go).
	hosts    map[int]string
	inFlight map[int]running
}

// runMaster runs rank 0 until every unit of work is written (and, in a
// campaign, committed) or the run fails.
func runMaster(ctx context.Context, cfg *Config, tr transport.Transport) (*Summary, error) {
	metrics := cfg.Metrics.Rank(0, "master")
	m := &master{cfg: cfg, tr: tr, workers: tr.Size() - 1, clock: newClock(metrics), cached: map[int]map[int]bool{},
		held: map[int][][]byte{}, reported: map[int]bool{}, metrics: metrics, taskStats: newTaskStats(),
		hosts: map[int]string{}}
	if m.workers < 1 {
		return nil, fmt.Errorf("the engine needs at least one worker (run with --workers W, or mpirun -np >= 2)")
	}
	m.run = newRunRecorder(cfg.Campaign, m.clock.start, cfg.Log)
	// A worker told to stop stops the master too (stopRun).
	ctx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	m.stopRun = stopRun
	m.completions = make(chan func() error)
	m.leasing, m.storing = newLane(m.completions), newLane(m.completions)
	defer func() {
		if m.source != nil {
			m.source.close()
		}
	}()
	if err := m.setup(ctx); err != nil {
		m.stopLanes(0)
		m.broadcast(&envelope{Setup: &setupMsg{Error: err.Error()}})
		m.collectSummaries(ctx)
		m.run.write(ctx, m.final(), runrecord.RunFailed, err)
		return nil, err
	}
	m.clock.since("setup", m.clock.start)
	m.run.write(ctx, m.snapshot(), runrecord.RunRunning, nil)
	m.broadcast(&envelope{Setup: &setupMsg{}})
	err := m.loop(ctx)
	// What the lane still holds runs now, and later storage work runs
	// inline: the loop that would act on it has ended.
	if err != nil {
		// The chunks first, before waiting for the lanes: after a SIGTERM
		// mpirun gives the ranks one second before its SIGKILL.
		m.giveUpUnits(ctx, err)
	}
	m.stopLanes(stopSummaryWait)
	if err != nil {
		m.broadcast(&envelope{Stop: &stopMsg{Abort: err.Error()}})
		// Stopped (SIGTERM) or failed, the workers' accounts still come
		// in, within a bound: they make the run record whole.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopSummaryWait)
		m.collectSummaries(cctx)
		cancel()
		state := runrecord.RunFailed
		if ctx.Err() != nil {
			state = runrecord.RunStopped
		}
		m.run.write(ctx, m.final(), state, err)
		return nil, err
	}
	m.broadcast(&envelope{Stop: &stopMsg{}})
	m.collectSummaries(ctx)
	sum := m.final()
	m.run.write(ctx, sum, runrecord.RunComplete, nil)
	return sum, nil
}

// final completes the summary with the master's own account, once the
// workers' summaries are in.
func (m *master) final() *Summary {
	m.sum = m.account(m.clock.finish, m.sum.Ranks)
	m.sum.Finish()
	return &m.sum
}

// snapshot is the summary so far, the master's rank only, for the run
// record of a run still going.
func (m *master) snapshot() *Summary {
	s := m.account(m.clock.snapshot, nil)
	return &s
}

// account is the summary with ranks and the master's own rank, filled by
// fill (the clock's finish or snapshot); the task statistics are copies,
// since the master goes on adding to its own.
func (m *master) account(fill func(*RankSummary), ranks []RankSummary) Summary {
	s := m.sum
	self := m.self
	self.Rank, self.Role = 0, "master"
	fill(&self)
	s.Ranks = append(ranks, self)
	s.WallSeconds, s.Started = self.WallSeconds, m.clock.start
	h := *m.taskStats.hist
	h.Counts = slices.Clone(h.Counts)
	s.TaskSeconds, s.SlowestTasks = &h, slices.Clone(m.taskStats.slowest)
	return s
}

func (m *master) setup(ctx context.Context) error {
	cfg := m.cfg
	var sum string
	var err error
	m.mergeOpts = merge.Options{MaxTargetSeqs: cfg.MaxTargetSeqs, Evalue: cfg.Evalue,
		LengthDependentEvalues: cfg.Program.LengthDependentEvalues(), CompositionStats: compositionStats(cfg.Options),
		Verbatim: cfg.Program.WholeDatabase()}
	if cfg.Sim != nil {
		sum, err = m.setupSim(ctx)
	} else {
		sum, err = m.setupBLAST(ctx)
	}
	if err != nil {
		return err
	}
	ends := batchEnds(m.queries, cfg.BatchLetters())
	m.batchStart = map[int]bool{0: true}
	for _, e := range ends {
		m.batchStart[e] = true
	}
	if cfg.Sim == nil {
		letters := make([]int64, len(ends))
		first := 0
		for i, e := range ends {
			letters[i] = sumLetters(m.queries[first:e])
			first = e
		}
		p := decompose(workload{sizes: m.shardSizes, ids: m.shardIDs, base: m.groups, batches: letters, workers: m.workers,
			share: setupShare(cfg.Program, cfg.Options), segmentable: cfg.segmentable(m.dbSequences), fixed: cfg.GroupBytes > 0,
			mixed: !cfg.Schedule.static(), lpt: !cfg.Schedule.static() && cfg.BlockLetters == 0})
		m.groups, m.head, m.tail, m.decomposition = p.groups, p.head, p.tail, p.why
		if len(p.tail) > 0 {
			m.tailFrom = ends[p.tailFrom-1]
		}
	} else {
		m.head = seq(0, len(m.groups))
	}
	if len(m.tail) == 0 {
		m.tailFrom = len(m.queries)
	}
	m.shares = groupShares(m.groups, m.shardIDs, m.shardSizes)
	m.sched = scheduler.New(len(m.groups))
	m.own = map[int]*scheduler.Scheduler{}
	for w := 1; w <= m.workers; w++ {
		m.own[w] = scheduler.New(len(m.groups))
	}
	m.threshold = max(cfg.WriteBuffer, output.MinBlock(cfg.Output))
	if cfg.Campaign != nil {
		src, err := newCampaignSource(ctx, cfg, sum, len(m.queries), m)
		if err != nil {
			return err
		}
		m.source = src
	} else {
		m.source = singleSource{}
	}
	m.sum = Summary{Program: string(cfg.Program), Output: cfg.Output, Strategy: cfg.Strategy.Name(), QuerySync: cfg.QuerySync, Slots: m.workers * cfg.Threads,
		Backend: "blast", Schedule: cfg.Schedule.String(),
		TopHits: cfg.TopHits.String(), Queries: len(m.queries), QueryLetters: m.letters,
		Shards: m.shards, ShardGroups: len(m.head),
		Batching: string(cfg.Batching), BatchLetters: cfg.BatchLetters(), Batches: len(ends), Decomposition: m.decomposition}
	if m.sum.Batching == "" {
		m.sum.Batching = string(blast.BatchingBLAST)
	}
	if cfg.Sim != nil {
		c := cfg.Sim.Model.Config()
		m.sum.Backend, m.sum.Simulation = "simulate", &SimSummary{Seed: c.Seed, Speed: c.Speed, Spend: cfg.Sim.Spend.String(),
			Subjects: c.Subjects, Generated: cfg.Sim.Generate}
	}
	cfg.Log.Info("search starting", "queries", len(m.queries), "letters", m.letters,
		"shards", m.shards, "groups", len(m.groups), "workers", m.workers, "batchLetters", cfg.BatchLetters(), "batches", len(ends), "decomposition", m.decomposition, "backend", m.sum.Backend, "schedule", m.sum.Schedule)
	return nil
}

// setupBLAST reads the database's manifest and the queries, and returns
// the queries object's SHA-256.
func (m *master) setupBLAST(ctx context.Context) (string, error) {
	cfg := m.cfg
	db, _, err := openDatabase(ctx, cfg)
	if err != nil {
		return "", m.refuseDatabase(ctx, err)
	}
	if err := db.CheckProgram(cfg.Program, cfg.Database); err != nil {
		return "", err
	}
	if cfg.Program.WholeDatabase() {
		m.groups, err = wholeGroup(db, cfg.Program, cfg.GroupBytes, cfg.CacheBytes)
	} else {
		m.groups, err = shardGroups(db, cfg.GroupBytes, cfg.CacheBytes)
	}
	if err != nil {
		return "", err
	}
	m.shards = len(db.Shards)
	for _, s := range db.Shards {
		m.shardIDs, m.shardSizes = append(m.shardIDs, s.ID), append(m.shardSizes, s.Bytes())
	}
	m.dbSequences = db.Sequences
	m.mergeOpts.InOrder = db.InOrder()
	if !m.mergeOpts.InOrder {
		cfg.Log.Info("the database's shards do not keep its order (built before blastfleet kept it): subjects that tie in E-value and score are re-ordered by their database ordinals, which BLAST's order may differ from where E-values differ in unprinted digits; rebuild it with blastfleet db shard --force for BLAST's exact order",
			"database", cfg.Database)
	}
	var sum string
	if m.queries, m.letters, sum, err = loadQueries(ctx, cfg.Queries, cfg.Program); err != nil {
		return "", err
	}
	return sum, m.setupSAM(ctx, db.Name)
}

func (m *master) broadcast(e *envelope) {
	data := encode(e)
	for w := 1; w <= m.workers; w++ {
		_ = m.tr.Send(w, data)
	}
}

func (m *master) send(w int, e *envelope) error { return m.tr.Send(w, encode(e)) }

// finished: the source has nothing more, every unit is done, and no rank
// waits at a barrier.
func (m *master) finished() bool {
	return m.drained && len(m.units) == 0 && m.leasing.idle() && m.storing.idle() && !m.syncing() && len(m.deferred) == 0
}

func (m *master) loop(ctx context.Context) error {
	progress := time.NewTicker(10 * time.Second)
	defer progress.Stop()
	retry := time.NewTimer(time.Hour)
	defer retry.Stop()
	for !m.finished() {
		if !m.syncing() && len(m.deferred) > 0 {
			// A barrier ended: what came in meanwhile, in order.
			d := m.deferred[0]
			m.deferred = m.deferred[1:]
			if err := m.handleEnvelope(ctx, d.from, d.e); err != nil {
				return err
			}
			continue
		}
		if !m.retry.IsZero() {
			retry.Reset(time.Until(m.retry))
		}
		// Time waiting while a barrier is open is the master's sync.
		waitStart, syncing := time.Now(), m.syncing()
		waited := func() {
			if syncing {
				m.clock.since("sync", waitStart)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-progress.C:
			waited()
			m.updateRun(ctx)
			m.cfg.Log.Info("progress", "queriesWritten", m.sum.QueriesWritten, "queries", len(m.queries),
				"tasks", m.sum.Tasks, "activeUnits", len(m.units), "bytesWritten", m.sum.BytesWritten)
		case c := <-m.completions:
			waited()
			if err := c(); err != nil {
				return err
			}
		case <-retry.C:
			waited()
			m.retry = time.Time{}
			if err := m.dispatch(ctx); err != nil {
				return err
			}
		case msg, ok := <-m.tr.Recv():
			waited()
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

// deferredMsg is a message that came in while a barrier was open.
type deferredMsg struct {
	from int
	e    *envelope
}

func (m *master) handle(ctx context.Context, msg transport.Message) error {
	t := time.Now()
	e, err := decode(msg.Data)
	if err != nil {
		return fmt.Errorf("from rank %d: %w", msg.From, err)
	}
	if e.Done != nil && e.Done.Lines != nil {
		// Master-writing: receiving the results is the master's gather.
		m.clock.since("gather", t)
	}
	if m.syncing() && (e.Hello != nil || e.Done != nil) {
		// As in MPI_Barrier, the master serves no worker until every rank
		// is through; only what the barrier waits for gets through.
		m.deferred = append(m.deferred, deferredMsg{from: msg.From, e: e})
		return nil
	}
	return m.handleEnvelope(ctx, msg.From, e)
}

func (m *master) handleEnvelope(ctx context.Context, from int, e *envelope) error {
	switch {
	case e.Hello != nil:
		m.setCached(from, e.Hello.Cached)
		m.hosts[from] = e.Hello.Host
		m.idle = append(m.idle, from)
		return m.dispatch(ctx)
	case e.Done != nil:
		delete(m.inFlight, from)
		m.setCached(from, e.Done.Cached)
		u := m.record(e.Done)
		m.idle = append(m.idle, from)
		if err := m.dispatch(ctx); err != nil {
			return err
		}
		if u != nil && !u.failed {
			return m.mergeReady(ctx, u)
		}
		return nil
	case e.Failed != nil:
		if e.Failed.Task < 0 {
			return fmt.Errorf("rank %d: %s", from, e.Failed.Error)
		}
		delete(m.inFlight, from)
		t := m.tasks[e.Failed.Task]
		b := m.blocks[t.block]
		m.sum.Tasks++
		if b.unit.failed {
			// Another task of this chunk failed first; it is recorded once.
			m.releaseNow(e.Failed.Task)
			m.idle = append(m.idle, from)
			return m.dispatch(ctx)
		}
		what := fmt.Sprintf("query block %d (queries %s..%s)", t.block, m.queries[b.first].ID, m.queries[b.end-1].ID)
		switch {
		case t.ties:
			what = "ordering tied subjects of " + what
		case t.regen:
			what = "regenerating the reports of " + what
		default:
			what += fmt.Sprintf(" against shard group %d (shards %v)", t.group, m.groups[t.group])
		}
		err := fmt.Errorf("%s on rank %d: %s", what, from, e.Failed.Error)
		m.idle = append(m.idle, from)
		if err := m.fail(ctx, b.unit, err, e.Failed); err != nil {
			return err
		}
		return m.dispatch(ctx)
	case e.Written != nil:
		u := m.unitByID(e.Written.Unit)
		if u == nil {
			return nil // a unit abandoned after a failure
		}
		if e.Written.Error != "" {
			var err error = fmt.Errorf("rank %d writing output (write %d): %s", from, e.Written.Write, e.Written.Error)
			if e.Written.Unavailable {
				err = storeUnavailable{err}
			}
			return m.fail(ctx, u, err, nil)
		}
		u.inFlight--
		if output.IsObject(u.target.Location) {
			u.parts = append(u.parts, objstore.Part{Number: e.Written.Part, ETag: e.Written.ETag, Size: e.Written.Size})
		}
		m.syncWritten(u.id, e.Written.Write)
		if err := m.maybeFinish(ctx, u); err != nil {
			return err
		}
		// A finished unit may free the source (a campaign's last chunk).
		if err := m.dispatch(ctx); err != nil {
			return err
		}
		return m.checkSync(ctx)
	case e.Arrive != nil:
		return m.arrive(ctx, e.Arrive.ID)
	case e.Summary != nil:
		m.addSummary(from, e.Summary)
		if e.Stopped {
			// mpirun (or a pod deletion) signals every rank, not all at
			// once: the master stops as if told itself, so its chunks are
			// recorded stopped and released, not abandoned as failed.
			m.stopRun()
			return fmt.Errorf("rank %d was told to stop: %w", from, context.Canceled)
		}
		return fmt.Errorf("rank %d stopped early", from)
	}
	return fmt.Errorf("unexpected message from rank %d", from)
}

// setCached records the groups worker w caches, from the shards it says
// it caches: a group whose every shard is there.
func (m *master) setCached(w int, shards []int) {
	// Every task's report says it again: refill the worker's set in place.
	set := m.cached[w]
	if set == nil {
		set = map[int]bool{}
		m.cached[w] = set
	}
	clear(set)
	have := map[int]bool{}
	for _, s := range shards {
		have[s] = true
	}
	for g, group := range m.groups {
		if !slices.ContainsFunc(group, func(s int) bool { return !have[s] }) {
			set[g] = true
		}
	}
}

// dispatch hands tasks to idle workers (Algorithm 1), cutting query blocks
// (and taking new units of work) before the unassigned tasks run out, so
// no worker waits at a block or chunk boundary.
func (m *master) dispatch(ctx context.Context) error {
	if err := m.dispatchRegens(); err != nil {
		return err
	}
	if m.cfg.Schedule.static() {
		return m.dispatchStatic(ctx)
	}
	for len(m.idle) > 0 && !m.syncing() {
		for m.sched.Unassigned() < m.ahead() {
			more, err := m.addBlock(ctx)
			if err != nil {
				return err
			}
			if !more {
				break
			}
		}
		w := m.idle[0]
		t, ok := m.sched.Next(func(g int) bool { return m.cached[w][g] })
		if !ok {
			return nil
		}
		m.idle = m.idle[1:]
		if err := m.assign(w, t); err != nil {
			return err
		}
	}
	return nil
}

// ahead is how many unassigned tasks the master keeps ready: one per
// worker, so none waits at a block or chunk boundary; but near a
// campaign's end (few chunks left to share), only what idle workers take
// now, so a partition does not hold a chunk an idle partition could
// search (with chunks of whole batches, a chunk is often one task).
func (m *master) ahead() int {
	if n := len(m.units); n > 0 && m.cfg.Campaign != nil && m.units[n-1].later < 2*m.workers {
		return len(m.idle)
	}
	return m.workers
}

// assign sends worker w a task: the block's queries (their letters, or
// under simulate their lengths) and the shard group.
func (m *master) assign(w int, t scheduler.Task) error {
	id := len(m.tasks)
	m.tasks = append(m.tasks, taskInfo{block: t.Block, group: t.Group, worker: w})
	b := m.blocks[t.Block]
	b.tasks = append(b.tasks, id)
	if b.assign == nil {
		b.assign = m.blockAssign(t.Block, b)
	}
	a := *b.assign
	a.Task, a.Group, a.Shards, a.Groups = id, t.Group, m.groups[t.Group], len(b.groups)
	expect := m.expectSeconds(t.Block, t.Group)
	if n := m.tailThreads(w, expect); n != m.cfg.Threads {
		a.Threads = n
		m.sum.TailTasks++
		m.cfg.Log.Info("the last task takes the idle slots of its host", "rank", w, "threads", n,
			"queries", fmt.Sprintf("%s..%s", m.queries[b.first].ID, m.queries[b.end-1].ID), "group", t.Group)
	}
	m.busy(w, running{started: time.Now(), expect: expect})
	if m.firstTask.IsZero() && m.clock != nil {
		m.firstTask = time.Now()
		m.sum.FirstTaskSeconds = m.firstTask.Sub(m.clock.start).Seconds()
	}
	if len(b.tasks) == len(b.groups) {
		b.assign = nil
	}
	return m.send(w, &envelope{Assign: &a})
}

// blockAssign is the part of an assign message every task of block id
// shares.
func (m *master) blockAssign(id int, b *blockState) *assignMsg {
	qs := m.queries[b.first:b.end]
	a := &assignMsg{Block: id, First: b.first, IDs: make([]string, len(qs)), Batch: b.batch}
	for i, q := range qs {
		a.IDs[i] = q.ID
	}
	if m.cfg.Sim != nil {
		a.Lens = make([]int, len(qs))
		for i, q := range qs {
			a.Lens[i] = q.Len
		}
	} else {
		a.FASTA = blockFASTA(qs)
	}
	return a
}

// addBlock cuts the next block from the first unit with queries left, or
// takes a new unit; false when there is nothing to add now.
func (m *master) addBlock(ctx context.Context) (bool, error) {
	var u *unit
	for _, c := range m.units {
		if !c.failed && !c.blk.done() {
			u = c
			break
		}
	}
	if u == nil {
		m.takeUnit(ctx)
		return false, nil
	}
	u.blk.floor = m.minBlockLetters()
	u.blk.stop = m.tailFrom - u.first
	if u.blk.coarse() {
		m.addBatches(u)
		return true, nil
	}
	first, end := u.blk.take()
	m.newBlock(u, first+u.first, end+u.first, 0)
	return true, nil
}

// addBatches cuts the rest of unit u into one block per BLAST+ batch and
// queues them largest first (LPT), the head's before the tail's. With a
// few batches per worker the order decides the makespan: in query order
// five long queries on 2 workers left one idle 2.8 s of 15.4 (a 411 kb
// query started last); largest first ends within 4/3 of the best order.
// The unit keeps its blocks in query order, as its merge needs.
func (m *master) addBatches(u *unit) {
	var head, tail []int
	for !u.blk.done() {
		first, end := u.blk.takeBatch()
		id := m.makeBlock(u, first+u.first, end+u.first, 0)
		if len(m.tail) > 0 && first+u.first >= m.tailFrom {
			tail = append(tail, id)
		} else {
			head = append(head, id)
		}
	}
	for _, ids := range [][]int{head, tail} {
		slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(m.blocks[b].letters, m.blocks[a].letters) })
		for _, id := range ids {
			m.queueBlock(id)
		}
	}
}

// takeUnit asks the source for the next unit in the storage lane, unless
// a take is under way, the source is drained, or it said to wait.
func (m *master) takeUnit(ctx context.Context) {
	if m.acquiring || m.drained || (!m.retry.IsZero() && time.Now().Before(m.retry)) {
		return
	}
	m.acquiring = true
	m.leasing.do(func() func() error {
		t := m.source.take(ctx, m)
		return func() error { return m.took(ctx, t) }
	})
}

// took is the loop's side of a take: a new unit joins the active ones and
// the idle workers are served.
func (m *master) took(ctx context.Context, t taken) error {
	m.acquiring = false
	if t.err != nil {
		return t.err
	}
	m.retry = t.retry
	if t.last {
		m.drained = true
		if t.output != "" {
			m.sum.Output = t.output
		}
	}
	if u := t.unit; u != nil {
		if u.batch == blast.Alone && m.cfg.BatchLetters() != blast.Alone {
			m.sum.SearchedAlone = append(m.sum.SearchedAlone, QueryRange{First: m.queries[u.first].ID, Last: m.queries[u.end-1].ID, Count: u.end - u.first})
			m.cfg.Log.Info("queries searched alone: the unit cuts through a BLAST+ batch (a chunk split to isolate a failing query)",
				"first", m.queries[u.first].ID, "last", m.queries[u.end-1].ID, "queries", u.end-u.first)
		}
		u.id = m.nextID
		m.nextID++
		m.units = append(m.units, u)
		m.source.hold(u)
		if m.cfg.Schedule.static() {
			if err := m.splitUnit(u); err != nil {
				return err
			}
		}
	}
	return m.dispatch(ctx)
}

// stopLanes ends both lanes, each within wait.
func (m *master) stopLanes(wait time.Duration) {
	m.leasing.stop(wait)
	m.storing.stop(wait)
}

// updateRun refreshes the run record, when due, in the storage lane.
func (m *master) updateRun(ctx context.Context) {
	if !m.run.due() {
		return
	}
	sum := m.snapshot()
	m.storing.do(func() func() error {
		m.run.write(ctx, sum, runrecord.RunRunning, nil)
		return nil
	})
}

// newBlock queues the queries [first, end) of unit u as a block: for
// any worker (owner 0) or for the owner alone.
func (m *master) newBlock(u *unit, first, end, owner int) {
	m.queueBlock(m.makeBlock(u, first, end, owner))
}

// makeBlock adds the queries [first, end) of unit u as a block, in query
// order among the unit's, and returns its id; queueBlock hands it out.
func (m *master) makeBlock(u *unit, first, end, owner int) int {
	id := len(m.blocks)
	groups := m.blockGroups(first)
	m.blocks = append(m.blocks, &blockState{unit: u, first: first, end: end, letters: sumLetters(m.queries[first:end]), batch: u.batch,
		groups: groups, tasksLeft: len(groups), hits: make([][]merge.Hit, end-first), owner: owner})
	u.blocks = append(u.blocks, id)
	m.sum.Blocks++
	return id
}

// queueBlock queues block id's tasks: for any worker (owner 0) or for
// the owner alone.
func (m *master) queueBlock(id int) {
	b := m.blocks[id]
	if b.owner > 0 {
		m.own[b.owner].AddGroups(id, b.groups)
	} else {
		m.sched.AddGroups(id, b.groups)
	}
}

// blockGroups are the shard groups a block starting at query first is
// searched against: the tail's from tailFrom on, else the head's (every
// group, when no decomposition made one).
func (m *master) blockGroups(first int) []int {
	switch {
	case len(m.tail) > 0 && first >= m.tailFrom:
		return m.tail
	case len(m.head) > 0:
		return m.head
	}
	m.head = seq(0, len(m.groups))
	return m.head
}

// record stores a task's hit metadata and returns its unit.
func (m *master) record(d *doneMsg) *unit {
	t := m.tasks[d.Task]
	b := m.blocks[t.block]
	if t.ties {
		return m.recordTies(d, t, b)
	}
	if t.regen {
		return m.recordRegen(d, t, b)
	}
	m.sum.Tasks++
	if b.unit.failed {
		m.releaseNow(d.Task)
		return nil
	}
	if d.Lines != nil && !m.regenerating() {
		m.held[d.Task] = d.Lines
	}
	m.taskStats.add(m.taskRecord(t, b, d.BlastSeconds))
	m.overhead.add(float64(b.letters)*m.shares[t.group], d.BlastSeconds)
	if m.overhead.known() {
		m.sum.TaskOverheadSeconds, m.sum.MinBlockLetters = m.overhead.intercept, m.minBlockLetters()
	}
	for i, h := range d.Hits {
		b.hits[h.Query] = append(b.hits[h.Query], merge.Hit{Evalue: h.Evalue, Bitscore: h.Bitscore,
			Score: h.Score, SLen: h.SLen, Ordinal: h.Ordinal, Size: int(h.Size), Source: d.Task, Index: i, Shard: int(h.Shard)})
	}
	b.tasksLeft--
	switch {
	case b.tasksLeft == 0 && m.regenerating():
		m.queueRegen(t.block)
	case b.tasksLeft == 0:
		m.queueTieBreak(t.block)
	}
	return b.unit
}

func (m *master) unitByID(id int) *unit {
	for _, u := range m.units {
		if u.id == id {
			return u
		}
	}
	return nil
}

func (m *master) removeUnit(u *unit) {
	for i, c := range m.units {
		if c == u {
			m.units = append(m.units[:i], m.units[i+1:]...)
			return
		}
	}
}

// collectSummaries waits for every worker's summary after a stop.
func (m *master) collectSummaries(ctx context.Context) {
	timeout := time.After(5 * time.Minute)
	for len(m.reported) < m.workers {
		select {
		case <-ctx.Done():
			return
		case <-timeout:
			m.cfg.Log.Info("workers did not report", "missing", m.workers-len(m.reported))
			return
		case msg, ok := <-m.tr.Recv():
			if !ok {
				return
			}
			e, err := decode(msg.Data)
			if err != nil || e.Summary == nil {
				continue
			}
			m.addSummary(msg.From, e.Summary)
		}
	}
}

// addSummary keeps a worker's summary, once.
func (m *master) addSummary(from int, s *RankSummary) {
	if m.reported[from] {
		return
	}
	m.reported[from] = true
	m.sum.Ranks = append(m.sum.Ranks, *s)
}

var errNoWork = errors.New("no work")

// stopSummaryWait bounds the wait for workers' summaries after a stop or
// failure (a pod's grace period is 30 s by default).
const stopSummaryWait = 10 * time.Second

// taskRecord describes a finished task for the summary's slowest tasks.
func (m *master) taskRecord(t taskInfo, b *blockState, seconds float64) TaskRecord {
	var shards []int
	if t.group >= 0 {
		shards = m.groups[t.group]
	}
	r := TaskRecord{Rank: t.worker, Group: t.group, Shards: shards, FirstQuery: m.queries[b.first].ID,
		LastQuery: m.queries[b.end-1].ID, Queries: b.end - b.first, Letters: b.letters, Seconds: seconds}
	if l := b.unit.lease; l != nil {
		r.Chunk = l.Range.String()
	}
	return r
}
