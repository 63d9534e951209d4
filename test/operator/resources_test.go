package operator

import (
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
)

// TestWorkerMemory: a campaign whose worker memory cannot hold what its
// slots search (each slot's cache at least the largest shard, beside
// BLAST's working memory and the master's) creates no partition and says
// how much would do; given enough, its partition's workers get it, and
// the engine a shard cache that fits in it.
func TestWorkerMemory(t *testing.T) {
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("small")
	c := h.campaign("small", "sprot", 1)
	c.Spec.Partitions.SlotsPerWorker = 2
	c.Spec.Partitions.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
	h.create(c)
	h.writePlan("small", "sprot", 3)
	// 2 x (the largest shard, dbBytes/2, and 512Mi) + 256Mi.
	got := h.waitRefused("small", controllers.ReasonInsufficientMemory,
		"spec.partitions.resources: memory 1Gi cannot hold what 2 slots search", "ask for at least 1281Mi")
	if got.Status.Phase != v1alpha1.CampaignPending {
		t.Errorf("phase %s, want Pending", got.Status.Phase)
	}
	if p := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed); p != nil && p.Status == metav1.ConditionTrue {
		t.Errorf("Failed %s: a spec that can be fixed holds the campaign, it does not end it", describeCondition(p))
	}
	time.Sleep(3 * poll)
	if p := h.partitions("small"); len(p) != 0 {
		t.Errorf("partitions %s created with too little memory", names(p))
	}

	// Enough: the partition comes, its workers get the memory and each of
	// the 2 slots a cache of (2Gi - 256Mi - 2 x 512Mi) / 2 = 384Mi.
	h.update("small", func(c *v1alpha1.SearchCampaign) {
		c.Spec.Partitions.Resources.Limits[corev1.ResourceMemory] = resource.MustParse("2Gi")
	})
	job := h.waitPartitions("small", "small-p0-r0")["small-p0-r0"]
	w := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.Containers[0].Resources
	if w.Requests.Memory().String() != "2Gi" || w.Limits.Memory().String() != "2Gi" || w.Requests.Cpu().String() != "2" {
		t.Errorf("worker resources %v, want 2Gi of memory requested and limited, and 2 CPUs requested", w)
	}
	launcher := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
	if args := strings.Join(launcher.Args, " "); !strings.Contains(args, "-np 5 --oversubscribe") || !strings.Contains(args, "--cache-bytes 402653184") {
		t.Errorf("launcher args %q: want 5 ranks (2 workers of 2 slots, and the master) and --cache-bytes 402653184", args)
	}
}
