package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
)

// TestWorkerMemory: a campaign's worker memory bounds each slot's shard
// cache, so its partition's engine gets a cache that fits beside BLAST's
// and the master's memory; a memory too small for the largest shard still
// runs (the cache is on disk, and holds that shard), with a warning event
// saying how much would hold it in memory.
func TestWorkerMemory(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	for _, tc := range []struct {
		name, memory, cacheBytes string
		short                    bool
	}{
		// Each of the 2 slots: (2Gi - 256Mi - 2 x 512Mi) / 2 = 384Mi.
		{"enough", "2Gi", "402653184", false},
		// Less than the master's and BLAST's: the largest shard
		// (dbBytes/2), and a note of 2 x (1500 bytes + 512Mi) + 256Mi.
		{"short", "1Gi", "1500", true},
	} {
		h.putQueries(tc.name)
		c := h.campaign(tc.name, "sprot", 1)
		c.Spec.Partitions.SlotsPerWorker = 2
		c.Spec.Partitions.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(tc.memory)}}
		h.create(c)
		h.writePlan(tc.name, "sprot", 3)
		job := h.waitPartitions(tc.name, tc.name+"-p0-r0")[tc.name+"-p0-r0"]
		w := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.Containers[0].Resources
		if w.Requests.Memory().String() != tc.memory || w.Limits.Memory().String() != tc.memory || w.Requests.Cpu().String() != "2" {
			t.Errorf("%s: worker resources %v, want %s of memory requested and limited, and 2 CPUs requested", tc.name, w, tc.memory)
		}
		launcher := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
		if args := strings.Join(launcher.Args, " "); !strings.Contains(args, "-np 5 --oversubscribe") || !strings.HasSuffix(args, " --cache-bytes "+tc.cacheBytes) {
			t.Errorf("%s: launcher args %q: want 5 ranks (2 workers of 2 slots, and the master) and --cache-bytes %s", tc.name, args, tc.cacheBytes)
		}
		if !tc.short {
			continue
		}
		h.eventually("a "+controllers.ReasonMemoryShort+" event on "+tc.name, 60*time.Second, func() (bool, string) {
			var evs eventsv1.EventList
			if err := h.c.List(context.Background(), &evs, client.InNamespace(h.ns)); err != nil {
				return false, err.Error()
			}
			for _, e := range evs.Items {
				if e.Regarding.Name == tc.name && e.Reason == controllers.ReasonMemoryShort && e.Type == corev1.EventTypeWarning &&
					strings.Contains(e.Note, "spec.partitions.resources: memory 1Gi") && strings.Contains(e.Note, "1281Mi would hold them") {
					return true, ""
				}
			}
			return false, itoa(int32(len(evs.Items))) + " events, none such"
		})
	}
}
