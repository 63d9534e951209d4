package controllers

import (
	"context"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// One reconcile that creates a campaign's 8 partitions asks the API
// server for their NetworkPolicy once, not once per partition.
func TestNetworkPolicyOncePerReconcile(t *testing.T) {
	c := aCampaign().build()
	creates := 0
	cl := fake.NewClientBuilder().WithScheme(kubescheme.New()).WithObjects(c).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if _, ok := obj.(*networkingv1.NetworkPolicy); ok {
				creates++
			}
			return cl.Create(ctx, obj, opts...)
		},
	}).Build()
	r := &CampaignReconciler{Client: cl, Scheme: cl.Scheme(), Recorder: events.NewFakeRecorder(10), PartitionNetworkPolicy: true}
	run := newCampaignRun(r, c)
	for range 8 {
		if err := run.ensureNetworkPolicy(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if creates != 1 {
		t.Errorf("%d NetworkPolicy creates for 8 partitions, want 1", creates)
	}
	var np networkingv1.NetworkPolicy
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: c.Namespace, Name: c.Name + "-partitions"}, &np); err != nil {
		t.Errorf("the policy was not made: %v", err)
	}
}
