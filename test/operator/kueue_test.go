package operator

import (
	"context"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
)

// TestKueue: with a queue name, partitions carry Kueue's label and are
// created suspended; they count as queued; once Kueue admits one (clears
// suspend, injects a node selector) the operator never writes it again.
func TestKueue(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	ctx := context.Background()
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("queued")
	c := h.campaign("queued", "sprot", 2)
	c.Spec.QueueName = "team-a"
	h.create(c)
	h.writePlan("queued", "sprot", 3)

	parts := h.waitPartitions("queued", "queued-p0-r0", "queued-p1-r0")
	for _, job := range parts {
		if job.Labels[controllers.LabelKueueQueue] != "team-a" {
			t.Errorf("%s labels %v lack %s=team-a", job.Name, job.Labels, controllers.LabelKueueQueue)
		}
		if !ptr.Deref(job.Spec.RunPolicy.Suspend, false) {
			t.Errorf("%s was not created suspended", job.Name)
		}
	}
	h.eventually("partitions counted as queued", 10*time.Second, func() (bool, string) {
		p := h.get("queued").Status.Partitions
		return p.Queued == 2 && p.Running == 0, itoa(p.Queued) + " queued, " + itoa(p.Running) + " running"
	})

	// Kueue admits p0: unsuspends it and sets its node selector.
	admitted := parts["queued-p0-r0"]
	admitted.Spec.RunPolicy.Suspend = ptr.To(false)
	admitted.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.NodeSelector = map[string]string{"flavor": "spot"}
	if err := h.c.Update(ctx, admitted); err != nil {
		t.Fatal(err)
	}
	h.setJobCondition(admitted, kubeflow.JobRunning, "Running", "")
	rv := admitted.ResourceVersion
	h.eventually("one running, one queued", 10*time.Second, func() (bool, string) {
		p := h.get("queued").Status.Partitions
		return p.Queued == 1 && p.Running == 1, itoa(p.Queued) + " queued, " + itoa(p.Running) + " running"
	})
	time.Sleep(10 * poll) // several reconciles
	var now kubeflow.MPIJob
	if err := h.c.Get(ctx, client.ObjectKeyFromObject(admitted), &now); err != nil {
		t.Fatal(err)
	}
	if now.ResourceVersion != rv || ptr.Deref(now.Spec.RunPolicy.Suspend, true) ||
		now.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.NodeSelector["flavor"] != "spot" {
		t.Errorf("the operator rewrote an admitted partition: resourceVersion %s→%s, suspend %v, nodeSelector %v", rv, now.ResourceVersion,
			ptr.Deref(now.Spec.RunPolicy.Suspend, true), now.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.NodeSelector)
	}
}
