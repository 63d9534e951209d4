package controllers

import (
	"context"
	"fmt"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// A campaign's partitions are listed through the campaign index: only its
// own come back, whatever else the namespace holds.
func TestPartitionsListedByIndex(t *testing.T) {
	scheme := kubescheme.New()
	c, other := aCampaign().build(), aCampaign().build()
	c.UID, other.Name, other.UID = "uid-c", "other", "uid-other"
	objs := []client.Object{c, other}
	for i, camp := range []*v1alpha1.SearchCampaign{c, other, c, other} {
		job := &kubeflow.MPIJob{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: fmt.Sprintf("%s-p%d-r0", camp.Name, i),
			Labels: partitionLabels(camp, i, 0)}}
		if err := controllerutil.SetControllerReference(camp, job, scheme); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, job)
	}
	cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithIndex(&kubeflow.MPIJob{}, indexCampaign, campaignOf).Build()
	r := &CampaignReconciler{Client: cl, Scheme: scheme, Executors: executors(mpijob.Executor{})}
	parts, err := newCampaignRun(r, c).listPartitions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].index != 0 || parts[1].index != 2 {
		t.Errorf("partitions %+v, want the campaign's own 0 and 2", parts)
	}
}
