package controllers

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// refusingExecutor builds no partition, as an adapter whose controller
// would reject the object.
type refusingExecutor struct{ MPIJobExecutor }

func (refusingExecutor) Build(*PartitionSpec) (client.Object, error) {
	return nil, errors.New("partition camp-p0-r0 would be an invalid MPIJob: too long")
}

// A partition its executor refuses fails the campaign, and the reconcile
// stops there: no further partition, no Running phase over the failure.
func TestInvalidPartitionFailsCampaign(t *testing.T) {
	r := &CampaignReconciler{Executor: refusingExecutor{}, WorkerImage: "worker:test", PollInterval: time.Second, Now: func() time.Time { return t0 }}
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
