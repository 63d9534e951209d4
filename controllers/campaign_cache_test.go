package controllers

import (
	"context"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// A finished campaign's cached ledger handle (and the records it caches)
// is dropped at its next reconcile, not kept for as long as the operator
// runs (issue 30, finding 11).
func TestFinishedCampaignLeavesLedgerCache(t *testing.T) {
	c := aCampaign().build()
	c.UID = "uid-1"
	done := metav1.NewTime(time.Now().Add(-time.Hour))
	c.Status = v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignComplete, CompletionTime: &done,
		Location: location(c.Spec.Output, c.Namespace, c.Name)}
	cl := fake.NewClientBuilder().WithScheme(kubescheme.New()).WithObjects(c).WithStatusSubresource(&v1alpha1.SearchCampaign{}).
		WithIndex(&kubeflow.MPIJob{}, indexCampaign, campaignOf).Build()
	r := &CampaignReconciler{Client: cl, Scheme: cl.Scheme(), Recorder: events.NewFakeRecorder(10), Executors: executors(mpijob.Executor{}),
		PollInterval: time.Second, WindDown: time.Minute}
	r.ledgers.Store(c.UID, &cachedLedger{key: client.ObjectKeyFromObject(c)})
	r.backoff.next(c.UID, time.Second)
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.ledgers.Load(c.UID); ok {
		t.Error("the finished campaign's ledger is still cached")
	}
	if _, ok := r.backoff.failures.Load(c.UID); ok {
		t.Error("the finished campaign's backoff is still kept")
	}

	// Deleted: whatever was kept under its name goes too.
	r.ledgers.Store(c.UID, &cachedLedger{key: client.ObjectKeyFromObject(c)})
	r.backoff.next(c.UID, time.Second)
	if err := cl.Delete(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c)}); err != nil {
		t.Fatal(err)
	}
	_, cached := r.ledgers.Load(c.UID)
	_, backoff := r.backoff.failures.Load(c.UID)
	if cached || backoff {
		t.Errorf("a deleted campaign's ledger cached %v, backoff kept %v", cached, backoff)
	}
}
