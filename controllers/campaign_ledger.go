package controllers

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/internal/shared/jitter"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// readLedger takes the chunk state from the poller's last read (the
// campaign registers with it here), or reads it when there is no poller.
// An unreachable store does not stop the campaign: partitions keep
// working from their own leases, and the status keeps its last counts,
// marked Degraded.
func (run *campaignRun) readLedger(ctx context.Context) (bool, error) {
	rd, ok, err := run.ledgerRead(ctx)
	if !ok || err != nil || rd == nil {
		return ok, err
	}
	if rd.err != nil {
		run.storeFailed = true
		run.setCondition(v1alpha1.ConditionDegraded, true, "LedgerUnreachable", fmt.Sprintf("reading the ledger at %s: %v", run.loc, rd.err))
		return true, nil
	}
	run.read, run.status = rd, rd.status
	st := rd.status
	s := &run.c.Status
	s.Chunks = v1alpha1.ChunkCounts{
		Total: int32(st.Chunks), Committed: int32(st.Committed), Leased: int32(st.Leased),
		Failed: int32(st.Failed), Pending: int32(st.Pending), Retries: int32(st.Retries),
		FailedAttempts: v1alpha1.FailedAttemptCounts{ExitCode: int32(st.FailedAttempts.ExitCode), Signal: int32(st.FailedAttempts.Signal),
			Error: int32(st.FailedAttempts.Error), Abandoned: int32(st.FailedAttempts.Abandoned)},
		StoppedAttempts: int32(st.StoppedAttempts),
	}
	s.Queries = v1alpha1.QueryCounts{Total: int32(st.Queries), Done: int32(st.QueriesDone), Failed: int32(st.QueriesFailed)}
	s.FailedQueries = failedQueryStatus(st.FailedQueries)
	s.SearchedAlone = nil
	for i, r := range st.SearchedAlone {
		if i == 20 {
			break
		}
		s.SearchedAlone = append(s.SearchedAlone, r.String())
	}
	s.ChunksRatio = fmt.Sprintf("%d/%d", st.Committed, st.Chunks)
	s.Sites, s.SitesSummary = siteProgress(st.Sites)
	if d := endgamePoll(st, run.r.PollInterval); d > 0 && run.r.poller == nil {
		// The poller reads this soon itself.
		run.requeueWithin(jitter.Spread(d))
	}
	s.Progress = progress(st.QueriesDone, st.QueriesFailed, st.Queries)
	for _, p := range run.newProblems(rd) {
		run.warn("ResultVoided", "Verify", p)
	}
	if st.Invalid != nil && st.Invalid.Database {
		run.fail("DatabaseChanged", truncate("the database changed since the campaign was planned, so its result cannot be finished; start a new campaign against the database as it is now: "+
			st.Invalid.String(), 1024))
		return false, run.windDownPartitions(ctx)
	}
	if st.Invalid != nil {
		// A configuration error is every chunk's: no retry or split helps.
		run.fail("InvalidSearch", truncate("BLAST+ refuses the campaign's search, so nothing more will run; fix spec.blastOptions (or the program) in a new campaign: "+
			st.Invalid.String(), 1024))
		return false, run.windDownPartitions(ctx)
	}
	return true, nil
}

// ledgerRead is the campaign's latest read of its store. With a poller it
// is the poller's last, read again here only when that one failed (the
// handle may hold keys rotated since), and only by the first reconcile
// after that failed read (retryOnce): then the credentials are read
// again, the ledger opened again with them and read once more, and that
// read is the poller's last. The reconciles after it, until the poller
// (backing off) reads again, report the failed read as it is. A campaign
// the poller has no read of is read here once, which registers it. A
// suspended campaign is read here, by the reconciles its spec changes
// make.
func (run *campaignRun) ledgerRead(ctx context.Context) (*ledgerRead, bool, error) {
	p := run.r.poller
	cause := readNoPollerRead
	switch {
	case p == nil:
		cause = readNoPoller
	case run.c.Spec.Suspend:
		// A suspended campaign's ledger changes only when it resumes.
		p.forget(run.c.UID)
		p, cause = nil, readSuspended
	}
	key := client.ObjectKeyFromObject(run.c)
	var rd *ledgerRead
	if p != nil {
		if rd = p.result(run.c.UID, run.ledger); rd != nil {
			run.readCached = true
		}
	}
	if rd == nil {
		// No poller, or none of its reads (the campaign's first Running
		// reconcile, an operator restarted, a key rotated, a reconcile
		// of a cached copy older than the campaign's completion): what
		// it decides (its first counts, the partitions it creates) needs
		// the ledger's word.
		countStoreRead(cause)
		rd = readLedgerState(ctx, run.ledger, run.store, run.r.summaryMaxAge())
		if p != nil && (rd.err == nil || rd.planChanged()) {
			p.put(run.c.UID, key, run.ledger, run.store, rd)
		}
	}
	if rd.planChanged() {
		ok, err := run.planChanged(ctx, rd.planErr)
		return nil, ok, err
	}
	if rd.err == nil || rd.retried {
		return rd, true, nil
	}
	cause = readOwnFailed
	if run.readCached {
		if !p.retryOnce(run.c.UID, run.ledger) {
			return rd, true, nil
		}
		cause = readPollerFailed
	}
	countStoreRead(cause)
	if ok, err := run.reopenStorage(ctx); !ok || err != nil {
		return nil, ok, err
	}
	if ok, err := run.reopenLedger(ctx, run.storeAccess(ctx)); !ok || err != nil {
		return nil, ok, err
	}
	rd = readLedgerState(ctx, run.ledger, run.store, run.r.summaryMaxAge())
	rd.retried, run.readCached = true, false
	if rd.planChanged() {
		ok, err := run.planChanged(ctx, rd.planErr)
		return nil, ok, err
	}
	if p != nil {
		p.put(run.c.UID, key, run.ledger, run.store, rd)
	}
	return rd, true, nil
}

// exitSkew covers a partition's end time being whole seconds, and the
// clocks of the MPI operator's node and the operator's.
const exitSkew = 2 * time.Second

// readAfterExits: the status was read, and after every partition that
// exited 0 had exited, so such a partition can be told from one that
// finished: chunks the read says remain do remain. A poller's read made
// before one exited is not: the partition may have committed the last
// chunk since, and would be replaced for nothing. The poller then reads
// the campaign once past that exit, and wakes it.
func (run *campaignRun) readAfterExits() bool {
	if run.status == nil {
		return false
	}
	if !run.readCached {
		return true
	}
	var last time.Time // the latest exit the read does not cover
	for _, p := range run.parts {
		if end := p.state.FinishedAt.Add(exitSkew); p.state.Phase == executor.Succeeded && !run.read.at.After(end) && end.After(last) {
			last = end
		}
	}
	if last.IsZero() {
		return true
	}
	run.r.poller.refresh(run.c.UID, last)
	return false
}

// newProblems are rd's problems unless this version's were reported: the
// partition that voided a bad commit found it once.
func (run *campaignRun) newProblems(rd *ledgerRead) []string {
	v, ok := run.r.ledgers.Load(run.c.UID)
	if !ok || rd.version == "" {
		return rd.status.Problems
	}
	if v.(*cachedLedger).reported.Swap(rd.version) == rd.version {
		return nil
	}
	return rd.status.Problems
}

// endgamePoll is how soon to read the ledger again once every chunk left
// is being searched: the campaign completes when a partition assembles
// the result, which no watch reports, so the last poll interval would
// otherwise be added to every campaign's time. Zero outside the endgame.
func endgamePoll(st *ledger.Status, poll time.Duration) time.Duration {
	if st.Complete || st.Pending > 0 || st.Leased == 0 {
		return 0
	}
	return endgameInterval(poll)
}

// endgameInterval is a fifth of the poll interval, between 1 and 3 s.
func endgameInterval(poll time.Duration) time.Duration {
	return max(min(poll/5, 3*time.Second), time.Second)
}

// finishIfDone completes the campaign once every chunk is decided and
// the result is assembled. The operator assembles nothing: partitions
// assemble the result before they exit, under the assembly lease, and
// when none is left to, a short Job does (assembleByJob).
func (run *campaignRun) finishIfDone(ctx context.Context) (bool, error) {
	if run.status == nil || !run.status.Complete {
		return true, nil
	}
	asm, err := run.read.asm, run.read.asmErr
	if asm == nil && err == nil && run.readCached && run.activePartitions() == 0 {
		// The poller's read may predate the last partition's assembly:
		// read the marker now rather than start a Job for nothing.
		countStoreRead(readAssembledMarker)
		asm, err = run.ledger.AssembledResult(ctx)
	}
	if err != nil {
		run.requeueWithin(run.r.poll()) // a store hiccup: read it again
		return true, nil
	}
	if asm == nil {
		if run.activePartitions() > 0 {
			// No chunk is left: once a partition has assembled the
			// result the others are stopped; until then they are
			// assembling.
			run.requeueWithin(run.r.poll())
			return true, nil
		}
		return run.assembleByJob(ctx)
	}
	key := cmp.Or(asm.Key, ledger.ResultKey)
	s := &run.c.Status
	s.Result = run.store.URL(key)
	s.ResultSHA256, s.ResultBytes = asm.SHA256, asm.Size
	t := metav1.NewTime(run.now)
	s.CompletionTime = &t
	s.Phase = v1alpha1.CampaignComplete
	msg := fmt.Sprintf("all %d queries searched; result at %s", run.status.Queries, s.Result)
	if st := run.status; st.QueriesFailed > 0 {
		// Every other query's result exists: the campaign is done, and
		// says plainly what is missing. Failed is for campaigns that
		// cannot produce their result.
		msg = fmt.Sprintf("%d of %d queries searched; result at %s", st.QueriesDone, st.Queries, s.Result)
		degraded := fmt.Sprintf("%d of %d queries failed after every retry and have no result (%s); status.failedQueries lists them with their reasons",
			st.QueriesFailed, st.Queries, failedNames(st.FailedQueries, 3))
		run.setCondition(v1alpha1.ConditionDegraded, true, "QueriesFailed", degraded)
		run.warn("QueriesFailed", "Complete", degraded)
	} else {
		run.setCondition(v1alpha1.ConditionDegraded, false, "Complete", msg)
	}
	run.setCondition(v1alpha1.ConditionComplete, true, "Complete", msg)
	run.setCondition(v1alpha1.ConditionProgressing, false, "Complete", msg)
	run.setCondition(v1alpha1.ConditionReady, true, "Complete", msg)
	run.normal("Complete", "Complete", msg)
	return false, run.windDownPartitions(ctx)
}

// Bounds on what status copies of failed queries: their ids come from the
// author's queries file and their reasons from BLAST, and an oversized
// status is refused by the API server, which would stall the campaign.
const (
	maxFailedListed = 20   // status.failedQueries holds at most this many (the CRD's MaxItems)
	maxFailedID     = 256  // bytes of a query id in status and messages
	maxFailedReason = 1024 // bytes of a failure's reason
)

// failedQueryStatus is status.failedQueries: the first maxFailedListed
// failed queries, ids and reasons truncated (status.queries.failed counts
// them all).
func failedQueryStatus(qs []ledger.FailedQuery) []v1alpha1.FailedQuery {
	var out []v1alpha1.FailedQuery
	for _, q := range qs[:min(len(qs), maxFailedListed)] {
		out = append(out, v1alpha1.FailedQuery{Index: int32(q.Query), ID: truncate(q.ID, maxFailedID), Reason: truncate(q.Reason.String(), maxFailedReason)})
	}
	return out
}

// failedNames names the first n failed queries by id (by index where the
// engine did not report one), and how many more there are.
func failedNames(qs []ledger.FailedQuery, n int) string {
	var names []string
	for i, q := range qs {
		if i == n {
			names = append(names, fmt.Sprintf("and %d more", len(qs)-n))
			break
		}
		if q.ID != "" {
			names = append(names, truncate(q.ID, maxFailedID))
		} else {
			names = append(names, fmt.Sprintf("query #%d", q.Query))
		}
	}
	return strings.Join(names, ", ")
}

// checkDeadline fails a campaign running past activeDeadlineSeconds.
func (run *campaignRun) checkDeadline(ctx context.Context) (bool, error) {
	s := run.c.Status
	d := run.c.Spec.ActiveDeadlineSeconds
	if d == nil || s.StartTime == nil {
		return true, nil
	}
	deadline := s.StartTime.Add(time.Duration(*d) * time.Second)
	if left := deadline.Sub(run.now); left > 0 {
		if run.requeue == 0 || left < run.requeue {
			run.requeue = left
		}
		return true, nil
	}
	run.fail("DeadlineExceeded", fmt.Sprintf("spec.activeDeadlineSeconds: the campaign ran past its %d s deadline", *d))
	return false, run.cleanupPartitions(ctx, "deadline exceeded")
}

// progress is the Progress column: the share of queries with a result,
// and how many failed. Failed queries are not progress: a campaign whose
// every query failed shows "0% (71 failed)", never 100%.
func progress(done, failed, total int) string {
	if total <= 0 {
		return ""
	}
	p := fmt.Sprintf("%d%%", done*100/total)
	if failed > 0 {
		p += fmt.Sprintf(" (%d failed)", failed)
	}
	return p
}
