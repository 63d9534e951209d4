package controllers

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// startPoller makes the reconciler's ledger poller and adds it to the
// manager: as many reads at once as reconciles, each bounded like one.
// It keeps time by the wall clock, not r.Now: a test's stopped clock
// would leave every campaign unread.
func (r *CampaignReconciler) startPoller(mgr ctrl.Manager) error {
	b := r.Bounds.withDefaults()
	p := newLedgerPoller(r.PollInterval, b.MaxConcurrentReconciles, b.ReconcileTimeout)
	p.bound = func(ctx context.Context) context.Context { return objstore.WithReadLimit(ctx, b.MaxObjectBytes) }
	p.read = func(ctx context.Context, l *ledger.Ledger, st objstore.Store) *ledgerRead {
		return readLedgerState(ctx, l, st, r.summaryMaxAge())
	}
	r.poller = p
	return mgr.Add(p)
}
