package controllers

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Why a campaign reconcile read the campaign's store itself rather than
// take the ledger poller's last read (campaignStoreReads' causes).
const (
	// readNoPoller: the reconciler runs without a poller.
	readNoPoller = "no_poller"
	// readSuspended: a suspended campaign is not polled.
	readSuspended = "suspended"
	// readNoPollerRead: the poller has no read of the campaign through
	// its ledger handle (its first Running reconcile, an operator
	// restarted, a handle opened anew).
	readNoPollerRead = "no_poller_read"
	// readPollerFailed: the poller's last read failed; the store is
	// opened again with credentials read anew, once per failed poll.
	readPollerFailed = "poller_read_failed"
	// readOwnFailed: the reconcile's own read failed, and is made again
	// the same way.
	readOwnFailed = "own_read_failed"
	// readAssembledMarker: every chunk is decided and no partition runs:
	// the marker is checked before an assembly Job is started.
	readAssembledMarker = "assembled_marker"
	// readRunRecords: a finishing campaign's cost, when the poller's read
	// did not hold its run records.
	readRunRecords = "run_records"
	// readLedgerOpen: the ledger is opened (plan.json read) for a
	// campaign the reconciler holds no handle of, or that has no plan yet.
	readLedgerOpen = "ledger_open"
	// readCredentialsChanged: the output store's Secret, endpoint or CA
	// changed, and the ledger is opened again with them.
	readCredentialsChanged = "credentials_changed"
	// readQueriesCheck: the queries object is checked before planning.
	readQueriesCheck = "queries_check"
)

// campaignStoreReads counts the store reads campaign reconciles made
// themselves, by cause: what the ledger poller did not spare them.
var campaignStoreReads = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "blastfleet_operator_campaign_store_reads_total",
	Help: "Reads a SearchCampaign reconcile made of the campaign's store itself instead of taking the ledger poller's, by cause " +
		"(no_poller_read, poller_read_failed, own_read_failed, assembled_marker, run_records, ledger_open, credentials_changed, queries_check, suspended, no_poller).",
}, []string{"cause"})

// Outcomes of the ledger poller's reads (ledgerPollerReads).
const (
	pollOK      = "ok"
	pollError   = "error"
	pollTimeout = "timeout"
)

// ledgerPollerReads counts the ledger poller's reads by outcome: a
// timeout is a read that ran out of its deadline.
var ledgerPollerReads = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "blastfleet_operator_ledger_poller_reads_total",
	Help: "The ledger poller's reads of running campaigns' stores, by outcome (ok, error, timeout).",
}, []string{"outcome"})

func init() {
	crmetrics.Registry.MustRegister(campaignStoreReads, ledgerPollerReads)
	// Every series from the start: a cause that never happens reads 0,
	// not "no data".
	for _, c := range []string{readNoPoller, readSuspended, readNoPollerRead, readPollerFailed, readOwnFailed,
		readAssembledMarker, readRunRecords, readLedgerOpen, readCredentialsChanged, readQueriesCheck} {
		campaignStoreReads.WithLabelValues(c)
	}
	for _, o := range []string{pollOK, pollError, pollTimeout} {
		ledgerPollerReads.WithLabelValues(o)
	}
}

// countStoreRead counts one of a reconcile's own store reads.
func countStoreRead(cause string) { campaignStoreReads.WithLabelValues(cause).Inc() }

// pollOutcome is how a poller's read went: a read whose status could not
// be read failed, by its deadline or otherwise.
func pollOutcome(rd *ledgerRead) string {
	var timeout interface{ Timeout() bool }
	switch {
	case rd.err == nil:
		return pollOK
	case errors.Is(rd.err, context.DeadlineExceeded), errors.As(rd.err, &timeout) && timeout.Timeout():
		return pollTimeout
	}
	return pollError
}
