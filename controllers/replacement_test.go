package controllers

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// steps renders a plan compactly: "create 0", "replace 1 r2 (3 used)",
// "wait 0 5s", "remove camp-p2-r0".
func steps(plan replacementPlan) []string {
	var out []string
	for _, p := range plan.remove {
		out = append(out, "remove "+p.obj.GetName())
	}
	for _, s := range plan.steps {
		switch s.kind {
		case stepCreate:
			out = append(out, fmt.Sprintf("create %d", s.index))
		case stepReplace:
			out = append(out, fmt.Sprintf("replace %d r%d (%d used)", s.index, s.restart, s.used))
		case stepWait:
			out = append(out, fmt.Sprintf("wait %d %s", s.index, s.wait))
		}
	}
	return out
}

func TestPlanReplacements(t *testing.T) {
	ago := func(d time.Duration) time.Time { return t0.Add(-d) }
	for _, tc := range []struct {
		name          string
		campaign      *campaignBuilder // count 2, 3 restarts, backoff 10s to 60s
		parts         []partition
		used          int
		ledgerUnread  bool
		want          []string
		wantExhausted int
	}{
		{name: "none yet", campaign: aCampaign(), want: []string{"create 0", "create 1"}},
		{name: "all live", campaign: aCampaign(), parts: parts(aPartition(0, 0), aPartition(1, 0).queued())},
		{name: "one missing", campaign: aCampaign(), parts: parts(aPartition(1, 0)), want: []string{"create 0"}},
		{name: "failed after backoff", campaign: aCampaign(),
			parts: parts(aPartition(0, 0).failed(ago(10*time.Second)), aPartition(1, 0)), want: []string{"replace 0 r1 (1 used)"}},
		{name: "failed within backoff", campaign: aCampaign(),
			parts: parts(aPartition(0, 0).failed(ago(4*time.Second)), aPartition(1, 0)), want: []string{"wait 0 6s"}},
		// The third replacement of an index waits 10s doubled twice.
		{name: "backoff doubles per restart", campaign: aCampaign(), used: 2,
			parts: parts(aPartition(0, 2).failed(ago(30*time.Second)), aPartition(1, 0)), want: []string{"wait 0 10s"}},
		{name: "only the newest restart counts", campaign: aCampaign(), used: 1,
			parts: parts(aPartition(0, 0).failed(ago(time.Hour)), aPartition(0, 1), aPartition(1, 0))},
		{name: "budget spent", campaign: aCampaign(), used: 3,
			parts: parts(aPartition(0, 3).failed(ago(time.Hour)), aPartition(1, 0)), wantExhausted: 1},
		// Replacements draw on one budget in index order.
		{name: "budget shared", campaign: aCampaign(), used: 2,
			parts: parts(aPartition(0, 1).failed(ago(time.Hour)), aPartition(1, 1).failed(ago(time.Hour))),
			want:  []string{"replace 0 r2 (3 used)"}, wantExhausted: 1},
		{name: "no budget at all", campaign: aCampaign().restarts(0, 10, 60),
			parts: parts(aPartition(0, 0).failed(ago(time.Hour)), aPartition(1, 0).failed(ago(time.Hour))), wantExhausted: 2},
		// A partition exits 0 when it finds no chunk: only the ledger
		// tells whether chunks remain.
		{name: "succeeded, ledger unread", campaign: aCampaign(), ledgerUnread: true,
			parts: parts(aPartition(0, 0).succeeded(ago(time.Hour)), aPartition(1, 0))},
		{name: "succeeded while chunks remain", campaign: aCampaign(),
			parts: parts(aPartition(0, 0).succeeded(ago(time.Hour)), aPartition(1, 0)), want: []string{"replace 0 r1 (1 used)"}},
		{name: "scaled down", campaign: aCampaign().partitions(1, 2, 1),
			parts: parts(aPartition(0, 0), aPartition(1, 0), aPartition(2, 1).failed(ago(time.Hour))),
			want:  []string{"remove camp-p1-r0", "remove camp-p2-r1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.campaign.build()
			plan := planReplacements(replacementInput{parts: tc.parts, count: int(c.Spec.Partitions.Count), policy: c.Spec.RetryPolicy,
				used: tc.used, ledgerRead: !tc.ledgerUnread, now: t0})
			if got := steps(plan); !slices.Equal(got, tc.want) {
				t.Errorf("steps %q, want %q", got, tc.want)
			}
			if plan.exhausted != tc.wantExhausted {
				t.Errorf("%d exhausted, want %d", plan.exhausted, tc.wantExhausted)
			}
		})
	}
}

// The last ended partition looked at names the failure in conditions.
func TestPlanReplacementsLastFailure(t *testing.T) {
	c := aCampaign().restarts(0, 10, 60).build()
	plan := planReplacements(replacementInput{count: 2, policy: c.Spec.RetryPolicy, ledgerRead: true, now: t0,
		parts: parts(aPartition(0, 0).failed(t0), aPartition(1, 0).failed(t0))})
	if want := "partition camp-p1-r0 Failed: BackoffLimitExceeded rank 3 exited 1"; plan.lastFailure != want {
		t.Errorf("last failure %q, want %q", plan.lastFailure, want)
	}
	if plan := planReplacements(replacementInput{count: 1, policy: c.Spec.RetryPolicy, ledgerRead: true, now: t0,
		parts: parts(aPartition(0, 0))}); plan.lastFailure != "" {
		t.Errorf("last failure %q with none failed", plan.lastFailure)
	}
}

func TestBackoff(t *testing.T) {
	policy := aCampaign().restarts(5, 10, 60).build().Spec.RetryPolicy
	var got []string
	for restart := 1; restart <= 5; restart++ {
		got = append(got, backoff(policy, restart).String())
	}
	if want := "10s 20s 40s 1m0s 1m0s"; strings.Join(got, " ") != want {
		t.Errorf("backoffs %s, want %s", strings.Join(got, " "), want)
	}
	if d := backoff(aCampaign().restarts(5, 0, 60).build().Spec.RetryPolicy, 3); d != 0 {
		t.Errorf("backoff of 0 seconds grew to %s", d)
	}
	if d := backoff(aCampaign().restarts(5, 100, 60).build().Spec.RetryPolicy, 1); d != time.Minute {
		t.Errorf("backoff above its cap: %s", d)
	}
}

// A partition whose worker pods failed (the MPI operator marks no
// condition then) is replaced once its backoff has run out, counted from
// the MPIJob's own last transition, not from whenever it is looked at:
// each observation would otherwise restart the backoff (issue 30,
// finding 9).
func TestWorkersFailedReplacedAfterBackoff(t *testing.T) {
	c := aCampaign().build() // backoff 10s
	obj, err := mpijob.Executor{}.Build(NewPartitionSpec(aCampaign().request(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	job := obj.(*kubeflow.MPIJob)
	running := metav1.NewTime(t0.Add(-time.Minute))
	job.Status.Conditions = []kubeflow.JobCondition{{Type: kubeflow.JobRunning, Status: corev1.ConditionTrue, LastTransitionTime: running}}
	job.Status.ReplicaStatuses = map[kubeflow.MPIReplicaType]*kubeflow.ReplicaStatus{kubeflow.MPIReplicaTypeWorker: {Failed: 1}}
	first := mpijob.Executor{}.State(job)
	time.Sleep(10 * time.Millisecond)
	if second := (mpijob.Executor{}).State(job); first.Phase != executor.Failed || !second.FinishedAt.Equal(first.FinishedAt) {
		t.Fatalf("observed %+v then %+v: want Failed with one finish time", first, second)
	}
	if !first.FinishedAt.Equal(running.Time) {
		t.Errorf("finished at %s, want the MPIJob's last transition %s", first.FinishedAt, running.Time)
	}
	p := partition{obj: job, index: 0, restart: 0, state: first}
	for _, now := range []time.Time{t0, t0.Add(time.Hour)} { // a fake clock, well past the backoff
		plan := planReplacements(replacementInput{parts: []partition{p}, count: 1, policy: c.Spec.RetryPolicy, ledgerRead: true, now: now})
		if got := steps(plan); !slices.Equal(got, []string{"replace 0 r1 (1 used)"}) {
			t.Errorf("at %s: steps %q, want the partition replaced", now, got)
		}
	}
}

// A partition that exited 0 is replaced while chunks remain, and not once
// the ledger says every chunk is decided: it ended because the campaign is
// done, and the others or the assembly Job assemble the result.
func TestPlanReplacementsSucceededWhenComplete(t *testing.T) {
	c := aCampaign().restarts(3, 10, 60).build()
	ended := parts(aPartition(0, 0).succeeded(t0.Add(-time.Hour)))
	if plan := planReplacements(replacementInput{count: 1, policy: c.Spec.RetryPolicy, ledgerRead: true, now: t0, parts: ended}); len(plan.steps) != 1 || plan.steps[0].kind != stepReplace {
		t.Errorf("chunks remain: steps %+v, want the partition replaced", plan.steps)
	}
	if plan := planReplacements(replacementInput{count: 1, policy: c.Spec.RetryPolicy, ledgerRead: true, complete: true, now: t0, parts: ended}); len(plan.steps) != 0 {
		t.Errorf("ledger complete: steps %+v, want none", plan.steps)
	}
}
