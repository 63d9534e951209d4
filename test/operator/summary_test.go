package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// TestStatusFromSummary: while partitions keep summary.json fresh, the
// operator's status comes from it, not from a listing of chunks/: a chunk
// committed since the summary was written shows only in the next one.
// A summary gone stale (no partition writes it) or of campaigns whose
// partitions predate it (none) is not trusted: the chunks are listed.
func TestStatusFromSummary(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("sum")
	h.create(h.campaign("sum", "sprot", 1))
	l := h.writePlan("sum", "sprot", 5) // chunks [0,2) [2,4) [4,5)
	parts := h.waitPartitions("sum", "sum-p0-r0")
	h.setJobCondition(parts["sum-p0-r0"], kubeflow.JobRunning, "Running", "")

	// No summary yet (a partition of an earlier version): the listing.
	h.commitChunks(l, 1)
	h.waitCommitted("sum", 1)

	// A partition writes the summary, then commits a chunk it has not
	// summarized yet: the status stays the summary's.
	if _, err := l.WriteSummary(ctx, "sum-p0-r0"); err != nil {
		t.Fatal(err)
	}
	h.commitChunks(l, 1)
	time.Sleep(8 * poll)
	if got := h.get("sum").Status; got.Chunks.Committed != 1 || got.Queries.Done != 2 || got.ChunksRatio != "1/3" {
		t.Errorf("status chunks %+v queries %+v ratio %s, want the summary's 1 committed chunk (2 queries)", got.Chunks, got.Queries, got.ChunksRatio)
	}
	if _, err := l.WriteSummary(ctx, "sum-p0-r0"); err != nil {
		t.Fatal(err)
	}
	h.waitCommitted("sum", 2)

	// Every field comes through: a summary holding what no listing of
	// this ledger gives (written as a partition writes it) is shown as is.
	st, err := l.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Retries, st.FailedAttempts.Signal, st.QueriesFailed = 7, 3, 1
	st.FailedQueries = []ledger.FailedQuery{{Query: 4, ID: "poison", Reason: ledger.FailureReason{Message: "blastp was killed", Signal: "SIGSEGV"}}}
	h.putSummary(l, time.Now(), st)
	h.eventually("the summary's counts", 10*time.Second, func() (bool, string) {
		s := h.get("sum").Status
		return s.Chunks.Retries == 7 && s.Chunks.FailedAttempts.Signal == 3 && s.Queries.Failed == 1 && len(s.FailedQueries) == 1 && s.FailedQueries[0].ID == "poison",
			fmt.Sprintf("chunks %+v queries %+v failed %+v", s.Chunks, s.Queries, s.FailedQueries)
	})

	// Stale (by more than --summary-max-age and the plan's skew): listed.
	h.putSummary(l, time.Now().Add(-time.Hour), st)
	h.eventually("the listing's counts", 10*time.Second, func() (bool, string) {
		s := h.get("sum").Status
		return s.Chunks.Retries == 0 && s.Queries.Failed == 0 && s.Chunks.Committed == 2, fmt.Sprintf("chunks %+v queries %+v", s.Chunks, s.Queries)
	})

	// The last chunk, summarized as the partition that commits it does,
	// then assembled: Complete.
	h.commitChunks(l, 1)
	if _, err := l.WriteSummary(ctx, "sum-p0-r0"); err != nil {
		t.Fatal(err)
	}
	h.assembleAsPartition(l)
	h.partitionExited(parts["sum-p0-r0"])
	done := h.waitPhase("sum", v1alpha1.CampaignComplete, 20*time.Second)
	if done.Status.Chunks.Committed != 3 || done.Status.Progress != "100%" {
		t.Errorf("complete status chunks %+v progress %s", done.Status.Chunks, done.Status.Progress)
	}
}

// putSummary writes summary.json as a partition writes it, with status st
// as listed at taken.
func (h *harness) putSummary(l *ledger.Ledger, taken time.Time, st *ledger.Status) {
	h.t.Helper()
	data, err := json.Marshal(map[string]any{"taken": taken, "writer": "test-partition", "planETag": l.PlanETag(), "status": st})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := l.Store().Put(context.Background(), ledger.SummaryKey, bytes.NewReader(data), int64(len(data))); err != nil {
		h.t.Fatal(err)
	}
}
