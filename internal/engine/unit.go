package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// unit is a range of queries whose merged output goes to one target: the
// whole search's --output, or in a campaign one leased chunk's result.
type unit struct {
	id         int
	first, end int // global query indexes
	blk        *blocker
	// batch is B for the unit's queries: the search's, or 1 (each query
	// alone) for a unit that cuts through a batch of the query file, as a
	// chunk split to isolate a failing query does.
	batch int
	// later is how many undecided chunks followed this one when it was
	// leased (0 outside campaigns).
	later      int
	target     output.Target
	lease      *ledger.Lease // nil outside campaigns
	leased     time.Time
	blocks     []int // block ids, in query order
	merged     int   // blocks merged, in order
	pending    []pendingLine
	pendSize   int64
	releasable []int // tasks of merged blocks whose lines may still be pending
	offset     int64
	written    int // blocks issued to writers
	writes     int // writes issued (a block may take several)
	inFlight   int // writes issued and not yet reported
	parts      []objstore.Part
	failed     bool
}

// pendingLine is a kept line waiting to be written.
type pendingLine struct {
	worker, task, index, size int
}

// newUnit starts the output of queries [first, end); more says that more
// work follows it (its blocks need not shrink towards its end).
func (m *master) newUnit(ctx context.Context, first, end int, location string, more bool) (*unit, error) {
	u := &unit{first: first, end: end, batch: m.unitBatch(first, end)}
	u.blk = newBlocker(m.queries[first:end], u.batch, m.cfg.BlockLetters, m.workers, more)
	var err error
	if u.target, err = output.Begin(ctx, location); err != nil {
		return nil, err
	}
	return u, nil
}

// unitBatch is B for queries [first, end): the search's when they are
// whole batches of the query file, else 1.
func (m *master) unitBatch(first, end int) int {
	if m.batchStart == nil || (m.batchStart[first] && m.batchStart[end]) {
		return m.cfg.BatchLetters()
	}
	return blast.Alone
}

// done: every block cut, merged and written.
func (u *unit) done() bool {
	return u.blk.done() && u.merged == len(u.blocks) && u.inFlight == 0 && u.pendSize == 0
}

// mergeReady merges a unit's finished blocks in query order and plans
// their writes.
func (m *master) mergeReady(ctx context.Context, u *unit) error {
	defer m.clock.span("merge")()
	for !u.failed && u.merged < len(u.blocks) && m.mergeable(m.blocks[u.blocks[u.merged]]) {
		b := m.blocks[u.blocks[u.merged]]
		for q, hits := range b.hits {
			if b.regenerated && b.pieces[q] > 0 {
				// A report: the query's piece is its one line. An empty
				// piece (the archive's queries after a batch's first, whose
				// document holds the batch) writes nothing: pending, it
				// would outlive its task's lines, freed once nothing
				// with a size is pending.
				t := b.regenTask
				u.pending = append(u.pending, pendingLine{worker: m.tasks[t].worker, task: t, index: q, size: b.pieces[q]})
				u.pendSize += int64(b.pieces[q])
			}
			for _, h := range merge.Merge(hits, m.mergeOpts) {
				u.pending = append(u.pending, pendingLine{worker: m.tasks[h.Source].worker, task: h.Source, index: h.Index, size: h.Size})
				u.pendSize += int64(h.Size)
				m.sum.Hits++
			}
			if u.pendSize >= m.threshold {
				if err := m.flush(ctx, u); err != nil || u.failed {
					return err
				}
			}
		}
		b.hits = nil
		u.merged++
		m.sum.QueriesWritten += b.end - b.first
		m.metrics.Queries(b.end-b.first, b.letters)
		if u.merged == len(u.blocks) && u.blk.done() {
			if err := m.flush(ctx, u); err != nil || u.failed {
				return err
			}
		}
		// A task's lines may be freed once every kept line is on its way
		// to a writer: now if nothing is pending, else at the next flush.
		if b.regenerated {
			u.releasable = append(u.releasable, b.regenTask)
		} else {
			u.releasable = append(u.releasable, b.tasks...)
		}
		if u.pendSize == 0 {
			if err := m.release(u); err != nil {
				return err
			}
		}
	}
	return m.maybeFinish(ctx, u)
}

// mergeable: a block's search is all in, its ties ordered and, for a
// report, regenerated.
func (m *master) mergeable(b *blockState) bool {
	return b.tasksLeft == 0 && !b.tieWait && (b.regenerated || !m.regenerating())
}

// release frees the lines of a unit's merged tasks, held by the workers
// or, under master-writing, by the master.
func (m *master) release(u *unit) error {
	byWorker := map[int][]int{}
	for _, t := range u.releasable {
		if m.cfg.Strategy.Flow() == output.ToMaster {
			delete(m.held, t)
			continue
		}
		w := m.tasks[t].worker
		byWorker[w] = append(byWorker[w], t)
	}
	for w, ts := range byWorker {
		if err := m.send(w, &envelope{Release: &releaseMsg{Tasks: ts}}); err != nil {
			return err
		}
	}
	u.releasable = nil
	return nil
}

func (m *master) releaseNow(task int) {
	if m.cfg.Strategy.Flow() == output.ToMaster {
		delete(m.held, task)
		return
	}
	_ = m.send(m.tasks[task].worker, &envelope{Release: &releaseMsg{Tasks: []int{task}}})
}

// maybeFinish makes a done unit's output whole and commits it, in the
// storage lane: the unit leaves the loop's books now, and the loop hears
// how the commit went when it has. Its lease is renewed until then: a
// commit may outlast a lease, and a lapsed lease would be taken over,
// here or elsewhere, and its chunk searched again for nothing.
func (m *master) maybeFinish(ctx context.Context, u *unit) error {
	if u.failed || !u.done() {
		return nil
	}
	m.removeUnit(u)
	m.storing.do(func() func() error {
		defer m.source.drop(u)
		// Finished work is committed even if a stop comes meanwhile: the
		// stop bounds how long the lane is waited for.
		sctx := context.WithoutCancel(ctx)
		// Parts arrive in any order; the upload's Complete sorts them.
		if err := output.Finish(sctx, u.target, u.parts); err != nil {
			return func() error {
				return m.fail(ctx, u, fmt.Errorf("finishing output %s: %w", u.target.Location, err), nil)
			}
		}
		if m.samHeader != nil && m.cfg.Campaign == nil {
			if err := output.Prepend(sctx, m.cfg.Output, m.samHeader); err != nil {
				return func() error {
					return m.fail(ctx, u, fmt.Errorf("putting the SAM header in front of %s: %w", m.cfg.Output, err), nil)
				}
			}
		}
		err := m.source.commit(sctx, m, u)
		return func() error {
			m.source.committed(m, u, err)
			// A chunk decided may change what the ledger has to lease:
			// ask again now rather than when a wait for others' leases
			// ends.
			m.retry = time.Time{}
			return m.dispatch(ctx)
		}
	})
	return nil
}

// fail ends a unit after an error: outside campaigns the whole run fails;
// in a campaign the chunk's attempt is recorded as failed (the ledger
// retries or splits it) and the partition goes on with other chunks.
func (m *master) fail(ctx context.Context, u *unit, cause error, f *failedMsg) error {
	if u.lease == nil {
		return cause
	}
	if f != nil && f.Site {
		// This site's BLAST+ cannot run the search: the partition ends,
		// its chunks are given back stopped (giveUpUnits), nothing is
		// marked, and the campaign goes on at other sites.
		return siteError{cause}
	}
	if ctx.Err() != nil || (f != nil && stopSignal(f.Signal)) {
		// Told to stop, BLAST or the engine gave up healthy work: a stop.
		m.stop(ctx, u, cause)
		return m.checkSync(ctx)
	}
	if isStoreUnavailable(cause, f) {
		m.loseTouch(ctx, u, cause)
		return m.checkSync(ctx)
	}
	m.cfg.Log.Error(cause, "chunk failed", "queries", fmt.Sprintf("%d-%d", u.first, u.end), "attempt", u.lease.Attempt)
	reason := ledger.FailureReason{Message: cause.Error()}
	if f != nil {
		reason.ExitCode, reason.Signal, reason.StderrTail, reason.Config = f.ExitCode, f.Signal, f.StderrTail, f.Config
	}
	if u.end-u.first == 1 && u.first < len(m.queries) {
		reason.QueryID = m.queries[u.first].ID
	}
	m.abandon(ctx, u, cause)
	// The lane keeps order: the next lease is asked for after this
	// failure is on record.
	m.leasing.do(func() func() error {
		// A chunk taken over while this partition was away (paused, cut
		// off) failed only because the taker aborted its upload: not the
		// chunk's failure, and no longer this partition's attempt.
		if u.lease.Released() || errors.Is(m.ledgerOp("renew", func() error { return u.lease.Renew(ctx) }), ledger.ErrLeaseLost) {
			m.cfg.Log.Info(takenOverMsg, "queries", u.lease.Range.String())
			return nil
		}
		if err := m.ledgerOp("fail", func() error { return u.lease.Fail(ctx, reason) }); err != nil {
			m.cfg.Log.Error(err, "recording a chunk failure", "queries", fmt.Sprintf("%d-%d", u.first, u.end))
		}
		if reason.Config {
			// Every chunk would fail alike: stop the campaign, everywhere,
			// instead of retrying and bisecting down to single queries.
			if err := m.ledgerOp("invalid", func() error { return m.source.markInvalid(ctx, reason) }); err != nil {
				m.cfg.Log.Error(err, "recording that BLAST+ refuses the search")
			}
		}
		return nil
	})
	m.sum.ChunksFailed++
	m.retry = time.Time{}
	// A barrier may have waited only for the abandoned unit's writes.
	return m.checkSync(ctx)
}

// siteError ends a partition whose site cannot run the search, though
// others may: its chunks are recorded stopped, not failed.
type siteError struct{ error }

func (e siteError) Unwrap() error { return e.error }

// takenOverMsg is logged for a chunk another partition took over while
// this one still worked on it.
const takenOverMsg = "chunk was taken over by another partition while ours ran; ours is dropped"

// stop gives up a healthy unit: its attempt is recorded as stopped, not
// failed, and its lease released at once, so a stop (suspend, scale-down,
// preemption) uses up no attempt and the chunk waits for no expiry. The
// record is written with a context that outlives the cancelled one.
func (m *master) stop(ctx context.Context, u *unit, cause error) {
	m.dropStopped(ctx, u, cause)
	m.leasing.do(func() func() error {
		m.recordStop(ctx, u, cause)
		return nil
	})
	m.retry = time.Time{}
}

// dropStopped drops a unit given up healthy from the books.
func (m *master) dropStopped(ctx context.Context, u *unit, cause error) {
	m.cfg.Log.Info("chunk stopped", "queries", fmt.Sprintf("%d-%d", u.first, u.end), "attempt", u.lease.Attempt, "why", cause.Error())
	m.abandon(context.WithoutCancel(ctx), u, cause)
	m.sum.ChunksStopped++
}

// recordStop writes a unit's stop to the ledger and releases its lease.
func (m *master) recordStop(ctx context.Context, u *unit, cause error) {
	if err := m.stopLease(ctx, u.lease, cause); err != nil {
		m.cfg.Log.Error(err, "recording a chunk's stop (its lease will expire instead)", "queries", fmt.Sprintf("%d-%d", u.first, u.end))
	}
}

// stopLease records a lease's attempt as stopped and releases it, with a
// context that outlives the cancelled one.
func (m *master) stopLease(ctx context.Context, ls *ledger.Lease, cause error) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopRecordWait)
	defer cancel()
	return m.ledgerOp("stop", func() error { return ls.Stop(sctx, stopReason(ctx, cause)) })
}

// stopRecordWait bounds recording one stop: a pod being deleted has its
// grace period (30 s by default) for all of them.
const stopRecordWait = 10 * time.Second

// stopSignal: BLAST ended by a signal that asks a process to stop
// (SIGTERM from a pod deletion or scancel, SIGINT, SIGHUP), not one that
// says it failed (SIGKILL from the OOM killer, SIGSEGV).
func stopSignal(sig string) bool {
	switch sig {
	case syscall.SIGTERM.String(), syscall.SIGINT.String(), syscall.SIGHUP.String():
		return true
	}
	return false
}

func stopReason(ctx context.Context, cause error) string {
	var site siteError
	if errors.As(cause, &site) {
		return "the partition stopped: " + cause.Error()
	}
	if ctx.Err() != nil {
		return "the partition was told to stop (SIGTERM: suspend, scale-down, preemption or deletion)"
	}
	return "BLAST was told to stop: " + cause.Error()
}

// giveUpUnits ends the units still open when the loop ends: after a stop,
// or an error of this site's alone (siteError), each is recorded stopped
// and released; after another error each is dropped
// and its lease left to expire (abandoned), since the partition may be
// what is wrong. Stops are written at once and side by side, not in the
// leasing lane behind what it is doing: mpirun gives a rank told to stop
// one second before its SIGKILL.
func (m *master) giveUpUnits(ctx context.Context, err error) {
	var wg sync.WaitGroup
	var site siteError
	stopped := ctx.Err() != nil || errors.As(err, &site)
	for _, u := range slices.Clone(m.units) {
		if !stopped || u.lease == nil {
			m.abandon(context.WithoutCancel(ctx), u, err)
			continue
		}
		m.dropStopped(ctx, u, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.recordStop(ctx, u, err)
		}()
	}
	wg.Wait()
}

// abandon drops a unit: its queued tasks, its lines, its partial output.
func (m *master) abandon(ctx context.Context, u *unit, cause error) {
	u.failed = true
	for _, id := range u.blocks {
		m.dropBlock(id)
		for _, t := range m.blocks[id].tasks {
			m.releaseNow(t)
		}
	}
	m.removeUnit(u)
	m.source.drop(u)
	m.syncAbandoned(u.id)
	m.storing.do(func() func() error {
		if err := output.Abort(ctx, u.target); err != nil {
			m.cfg.Log.Error(err, "cleaning up output", "location", u.target.Location)
		}
		return nil
	})
}

// unitSource is where a master's units of work come from. take and
// commit talk to storage and run in the lane; the rest run on the loop.
type unitSource interface {
	// take returns a new unit, or when to ask again, or that nothing
	// follows.
	take(ctx context.Context, m *master) taken
	// commit records a unit whose output is whole.
	commit(ctx context.Context, m *master, u *unit) error
	// committed is the loop's account of commit's outcome.
	committed(m *master, u *unit, err error)
	// hold and drop start and stop keeping a unit's lease alive.
	hold(u *unit)
	drop(u *unit)
	close()
	// markInvalid records that BLAST+ refuses the search (campaigns).
	markInvalid(ctx context.Context, reason ledger.FailureReason) error
}

// taken is what a source's take found.
type taken struct {
	unit   *unit
	retry  time.Time // no unit now: ask again then
	last   bool      // nothing follows
	output string    // with last: where the result is, if not --output
	err    error
}

// singleSource is one search to one --output.
type singleSource struct{}

func (singleSource) take(ctx context.Context, m *master) taken {
	u, err := m.newUnit(ctx, 0, len(m.queries), m.outputLocation(), false)
	return taken{unit: u, last: true, err: err}
}

func (singleSource) commit(context.Context, *master, *unit) error { return nil }
func (singleSource) committed(*master, *unit, error)              {}
func (singleSource) hold(*unit)                                   {}
func (singleSource) drop(*unit)                                   {}
func (singleSource) close()                                       {}

// markInvalid: outside campaigns the failure itself ends the run.
func (singleSource) markInvalid(context.Context, ledger.FailureReason) error { return nil }
