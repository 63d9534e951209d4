package controllers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
	"github.com/blastfleet/blastfleet/internal/plan/search"
)

// refusingExecutor builds no partition, as an adapter whose controller
// would reject the object.
type refusingExecutor struct{ mpijob.Executor }

func (refusingExecutor) Build(*executor.PartitionSpec) (client.Object, error) {
	return nil, errors.New("partition camp-p0-r0 would be an invalid MPIJob: too long")
}

// A partition its executor refuses fails the campaign, and the reconcile
// stops there: no further partition, no Running phase over the failure.
func TestInvalidPartitionFailsCampaign(t *testing.T) {
	r := &CampaignReconciler{Executors: executors(refusingExecutor{}), WorkerImage: "worker:test", PollInterval: time.Second, Now: func() time.Time { return t0 }}
	run := newCampaignRun(r, aCampaign().build())
	run.parts = []partition{}
	ok, err := run.reconcilePartitions(context.Background())
	if ok || err != nil {
		t.Fatalf("reconcilePartitions = %v, %v; want false, nil", ok, err)
	}
	c := run.c
	if c.Status.Phase != v1alpha1.CampaignFailed || !meta.IsStatusConditionTrue(c.Status.Conditions, v1alpha1.ConditionFailed) ||
		meta.IsStatusConditionTrue(c.Status.Conditions, v1alpha1.ConditionReady) {
		t.Errorf("phase %s, conditions %+v; want Failed and not Ready", c.Status.Phase, c.Status.Conditions)
	}
	if len(run.events) != 1 || run.events[0].reason != "InvalidPartition" {
		t.Errorf("events %+v, want one InvalidPartition", run.events)
	}
}

// A reconcile that created the campaign's first partition but lost its
// status write (a conflict) must leave the start time and the
// short-memory warning to the next reconcile, which finds the partition
// already there; they were once tied to the Create call and lost for good.
func TestStartRecordedAfterLostStatusWrite(t *testing.T) {
	r := &CampaignReconciler{Executors: executors(mpijob.Executor{}), WorkerImage: "worker:test", PollInterval: time.Second, Now: func() time.Time { return t0 }}
	c := aCampaign().partitions(1, 2, 2).resources(res("", "", "", "1Gi")).build()
	run := newCampaignRun(r, c)
	run.db = sizedDB(3000, 1500)
	run.parts = parts(aPartition(0, 0).queued())
	if _, err := run.reconcilePartitions(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := run.c.Status.StartTime; st == nil || !st.Time.Equal(t0) {
		t.Errorf("status.startTime %v, want %v: the partition has been there since an earlier reconcile", st, t0)
	}
	warned := 0
	for _, e := range run.events {
		if e.reason == ReasonMemoryShort && e.warning {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("events %+v: want one %s warning", run.events, ReasonMemoryShort)
	}

	// Once recorded, a later reconcile stays quiet.
	again := newCampaignRun(r, run.c)
	again.db, again.parts = run.db, run.parts
	if _, err := again.reconcilePartitions(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, e := range again.events {
		if e.reason == ReasonMemoryShort {
			t.Errorf("warned again once the start was recorded: %+v", e)
		}
	}
}

// Campaigns started together must not read their ledgers in lockstep:
// the poll requeue is spread within ±20% of the poll interval, never
// beyond it.
func TestPollSpread(t *testing.T) {
	r := &CampaignReconciler{Executors: executors(mpijob.Executor{}), WorkerImage: "worker:test", PollInterval: 10 * time.Second, Now: func() time.Time { return t0 }}
	seen := map[time.Duration]bool{}
	for range 50 {
		run := newCampaignRun(r, aCampaign().build())
		run.pollWhileRunning()
		if run.requeue < 8*time.Second || run.requeue > 12*time.Second {
			t.Fatalf("requeue after %v, want within 20%% of the 10s poll interval", run.requeue)
		}
		seen[run.requeue] = true
	}
	if len(seen) < 40 {
		t.Errorf("50 campaigns polled at %d distinct intervals: in lockstep", len(seen))
	}
}

// retryPolicy.maxStoppedAttempts reaches the plan only when set, so an
// older worker image without --max-stopped still plans the campaign.
func TestPlanJobMaxStopped(t *testing.T) {
	spec := search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500})
	db := sizedDB(3000, 1500)
	db.Status.Location = "s3://bucket/databases/ns/nt"
	for _, tc := range []struct {
		set  int32
		want string
	}{{0, ""}, {40, "--max-stopped 40"}} {
		c := aCampaign().build()
		c.Spec.RetryPolicy.MaxStoppedAttempts = tc.set
		job := mustPlanJob(t, c, spec, db, "s3://bucket/ns/camp", "worker:test")
		args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
		if got := strings.Contains(args, "--max-stopped"); got != (tc.want != "") || tc.want != "" && !strings.Contains(args, tc.want) {
			t.Errorf("maxStoppedAttempts %d: args %q, want %q", tc.set, args, tc.want)
		}
	}
}
