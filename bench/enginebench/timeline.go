package main

// Where way 6's time goes: a campaign's milestones, seen from outside at
// a fine grain (the API's timestamps are whole seconds) while it runs,
// and from its partition's run record once it is Complete.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// The milestones, in the order they happen.
const (
	msPlanJob   = "plan Job created"
	msPlanned   = "plan Job complete"
	msMPIJob    = "MPIJob created"
	msEngine    = "engine started"
	msFirstTask = "first BLAST task"
	msEngineEnd = "engine ended"
	msComplete  = "Complete"
)

var milestones = []string{msPlanJob, msPlanned, msMPIJob, msEngine, msFirstTask, msEngineEnd, msComplete}

// timeline is one campaign's milestones, in seconds after kubectl apply.
type timeline struct {
	mu sync.Mutex
	at map[string]float64
}

func (t *timeline) mark(name string, s float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.at == nil {
		t.at = map[string]float64{}
	}
	if _, ok := t.at[name]; !ok {
		t.at[name] = s
	}
}

func (t *timeline) seen(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.at[name]
	return ok
}

// watch polls the campaign's planning Job and MPIJob every 50 ms until
// ctx ends, marking when each appears and when the Job completes.
func (t *timeline) watch(ctx context.Context, kc client.Client, ns, campaign string, start time.Time) {
	for ctx.Err() == nil {
		since := time.Since(start).Seconds()
		var job batchv1.Job
		if err := kc.Get(ctx, client.ObjectKey{Namespace: ns, Name: controllers.PlanJobName(campaign)}, &job); err == nil {
			t.mark(msPlanJob, since)
			for _, c := range job.Status.Conditions {
				if c.Type == batchv1.JobComplete && c.Status == "True" {
					t.mark(msPlanned, since)
				}
			}
		}
		if !t.seen(msMPIJob) {
			var jobs kubeflow.MPIJobList
			if err := kc.List(ctx, &jobs, client.InNamespace(ns), client.MatchingLabels{controllers.LabelCampaign: campaign}); err == nil && len(jobs.Items) > 0 {
				t.mark(msMPIJob, since)
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// runs marks the engine's start, first task and end from the campaign's
// run records (the earliest start, the latest end), read from st, the
// campaign's ledger prefix.
func (t *timeline) runs(ctx context.Context, st objstore.Store, start time.Time) error {
	recs, err := runrecord.ReadRuns(ctx, st)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Started.IsZero() {
			continue
		}
		t.mark(msEngine, r.Started.Sub(start).Seconds())
		if r.Summary == nil {
			continue
		}
		if r.Summary.FirstTaskSeconds > 0 {
			t.mark(msFirstTask, r.Started.Sub(start).Seconds()+r.Summary.FirstTaskSeconds)
		}
		t.mark(msEngineEnd, r.Started.Sub(start).Seconds()+r.Summary.WallSeconds)
	}
	return nil
}

// String lists the milestones seen, in order of time.
func (t *timeline) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	names := slices.Clone(milestones)
	names = slices.DeleteFunc(names, func(n string) bool { _, ok := t.at[n]; return !ok })
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case t.at[a] < t.at[b]:
			return -1
		case t.at[a] > t.at[b]:
			return 1
		}
		return 0
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %.2f", n, t.at[n])
	}
	return strings.Join(parts, ", ")
}

// seconds are the milestones for the JSON results.
func (t *timeline) seconds() map[string]float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]float64, len(t.at))
	for k, v := range t.at {
		out[k] = v
	}
	return out
}
