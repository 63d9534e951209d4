package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/shared/jitter"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// Campaign makes the master lease chunks of a planned campaign from its
// ledger instead of searching one --queries file into one --output.
type Campaign struct {
	Location string
	Ledger   *ledger.Ledger
	Holder   string // unique per partition run, e.g. "<partition-id>-<random>"
	// Where the operator runs it (empty elsewhere), for the run record.
	Namespace, Name, Partition string
	// Site is where the partition runs (engine --site), for the run record.
	Site string
}

// campaignSource leases chunks; each becomes a unit whose output is the
// chunk's result object, committed through the ledger.
type campaignSource struct {
	c *Campaign
	// failingSince is the first of an unbroken run of ledger errors; only
	// the storage lane reads or writes it.
	failingSince time.Time
	renewer      *renewer
	summary      *summarizer
}

// giveUpAfter bounds how long a partition keeps retrying an object store
// that does not answer; its leases expire and others carry on.
const giveUpAfter = 10 * time.Minute

// retryAfterError is how long a master waits after the object store
// failed before asking the ledger again.
const retryAfterError = 2 * time.Second

func newCampaignSource(ctx context.Context, cfg *Config, queriesSHA string, queries int, m *master) (*campaignSource, error) {
	plan := cfg.Campaign.Ledger.Plan()
	if plan.Queries.SHA256 != "" && plan.Queries.SHA256 != queriesSHA {
		return nil, fmt.Errorf("campaign %s: queries object %s has SHA-256 %s, the plan says %s (changed or truncated since planning)",
			cfg.Campaign.Location, plan.Queries.Location, queriesSHA, plan.Queries.SHA256)
	}
	if plan.Queries.Count != 0 && plan.Queries.Count != queries {
		return nil, fmt.Errorf("campaign %s: queries object holds %d queries, the plan says %d", cfg.Campaign.Location, queries, plan.Queries.Count)
	}
	// The store may have changed since planning (a proxy, a failover).
	if err := ledger.CheckStore(ctx, cfg.Campaign.Ledger.Store()); err != nil {
		return nil, fmt.Errorf("campaign %s: %w", cfg.Campaign.Location, err)
	}
	return &campaignSource{c: cfg.Campaign, renewer: newRenewer(ctx, plan.Policy.Renew(), m.ledgerOp, cfg.Log),
		summary: newSummarizer(ctx, cfg.Campaign.Ledger, cfg.Campaign.Holder, m.ledgerOp, cfg.Log)}, nil
}

func (s *campaignSource) take(ctx context.Context, m *master) taken {
	var lease *ledger.Lease
	err := m.ledgerOp("acquire", func() (err error) {
		lease, err = s.c.Ledger.Acquire(ctx, s.c.Holder)
		return err
	})
	var all *ledger.AllLeasedError
	switch {
	case errors.Is(err, ledger.ErrNoChunk):
		// Every chunk is decided: assemble while the workers are still
		// here, since reading the results may void a corrupted commit
		// and make its chunk leasable again.
		output, err := s.assemble(ctx, m)
		if err != nil || output == "" {
			if err != nil {
				m.cfg.Log.Error(err, "assembling the campaign's result; will retry")
			}
			return retryIn(retryAfterError / 4)
		}
		return taken{last: true, output: output}
	case errors.As(err, &all):
		// Others hold the rest: ask again when their leases may expire,
		// or sooner, since they may also commit or fail. Spread, so
		// partitions waiting for the same lease do not all ask at once.
		return retryIn(time.Until(earliest(all.Until, time.Now().Add(5*time.Second))))
	case errors.Is(err, ledger.ErrInvalidSearch):
		// BLAST+ refused the search: no chunk can succeed, here or
		// elsewhere. The operator fails the campaign with the reason.
		return taken{err: fmt.Errorf("campaign %s: %w", s.c.Location, err)}
	case err != nil:
		if s.failingSince.IsZero() {
			s.failingSince = time.Now()
		}
		if time.Since(s.failingSince) > giveUpAfter {
			return taken{err: fmt.Errorf("campaign %s: the ledger has failed for %v: %w", s.c.Location, giveUpAfter, err)}
		}
		m.cfg.Log.Error(err, "leasing a chunk; will retry")
		return retryIn(retryAfterError)
	}
	s.failingSince = time.Time{}
	if ctx.Err() != nil {
		// Told to stop while leasing: hand the chunk straight back.
		_ = m.stopLease(ctx, lease, ctx.Err())
		return taken{err: ctx.Err()}
	}
	m.cfg.Log.Info("leased chunk", "queries", lease.Range.String(), "attempt", lease.Attempt)
	u, err := m.newUnit(ctx, lease.Range.First, lease.Range.End, s.c.Ledger.Store().URL(lease.ResultKey()), lease.Later > 0)
	if u != nil {
		u.later = lease.Later
	}
	if err != nil {
		if ctx.Err() != nil {
			// Told to stop while starting the chunk's output.
			_ = m.stopLease(ctx, lease, ctx.Err())
			return taken{err: ctx.Err()}
		}
		_ = m.ledgerOp("release", func() error { return lease.Release(ctx) })
		m.cfg.Log.Error(err, "starting a chunk's output; will retry")
		return retryIn(retryAfterError)
	}
	u.lease, u.leased = lease, time.Now()
	return taken{unit: u}
}

// retryIn is a take that asks the ledger again after about d, spread so
// that partitions started together do not ask in lockstep.
func retryIn(d time.Duration) taken { return taken{retry: time.Now().Add(jitter.Spread(d))} }

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func (s *campaignSource) commit(ctx context.Context, m *master, u *unit) error {
	err := m.ledgerOp("commit", func() error { return u.lease.CommitUploaded(ctx) })
	switch {
	case err == nil:
		m.cfg.Log.Info("committed chunk", "queries", u.lease.Range.String(), "attempt", u.lease.Attempt)
	case errors.Is(err, ledger.ErrAlreadyCommitted):
		m.cfg.Log.Info("chunk was committed by another partition first; ours is discarded", "queries", u.lease.Range.String())
	default:
		// The lease will expire and another attempt will redo the chunk.
		m.cfg.Log.Error(err, "committing chunk", "queries", u.lease.Range.String())
	}
	return err
}

func (s *campaignSource) committed(m *master, u *unit, err error) {
	if err == nil {
		m.sum.ChunksCommitted++
		m.metrics.Chunk(time.Since(u.leased).Seconds())
	}
}

func (s *campaignSource) hold(u *unit) { s.renewer.hold(u.lease) }

// drop ends a chunk's lease renewal: it was committed, failed or given
// up, which the summary tells pollers soon.
func (s *campaignSource) drop(u *unit) {
	s.renewer.drop(u.lease)
	s.summary.changed()
}

func (s *campaignSource) close() {
	s.renewer.stop()
	s.summary.stop()
}

// assemble builds the campaign's result once every chunk is decided and
// returns its location; empty when a chunk turned out to need redoing.
func (s *campaignSource) assemble(ctx context.Context, m *master) (string, error) {
	// The listing that finds the campaign complete is the summary's too,
	// so pollers see it complete without a listing of their own.
	st, err := s.summary.write(ctx)
	if st == nil {
		return "", err
	}
	if err != nil {
		m.cfg.Log.V(1).Info("writing the campaign summary", "error", err.Error())
	}
	if !st.Complete {
		return "", nil
	}
	var key string
	err = m.ledgerOp("assemble", func() (err error) {
		key, err = s.c.Ledger.Assemble(ctx)
		return err
	})
	if errors.Is(err, ledger.ErrIncomplete) {
		m.cfg.Log.Info("a committed result failed its check and will be redone", "error", err.Error())
		return "", nil
	}
	if err != nil {
		return "", err
	}
	output := s.c.Ledger.Store().URL(key)
	m.cfg.Log.Info("campaign complete", "result", output, "queriesFailed", st.QueriesFailed)
	return output, nil
}

// ledgerOp runs one ledger operation and sends its time to /metrics; the
// ledger's answers that are news, not failures, are not counted as errors.
func (m *master) ledgerOp(op string, f func() error) error {
	t := time.Now()
	err := f()
	failed := err
	if ledger.IsNews(err) {
		failed = nil
	}
	m.metrics.Ledger(op, time.Since(t).Seconds(), failed)
	return err
}

func (s *campaignSource) markInvalid(ctx context.Context, reason ledger.FailureReason) error {
	return s.c.Ledger.MarkInvalid(ctx, s.c.Holder, reason)
}
