package pods

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// WithRequests is r with a request of cpu and memory for each of them r
// neither requests nor limits. A pod without requests is BestEffort: the
// first a node under memory pressure kills, and placed with no regard to
// its node's load. Only requests: what a Job's pod needs varies with its
// input, and the user's spec may always say more.
func WithRequests(r corev1.ResourceRequirements, cpu, memory string) corev1.ResourceRequirements {
	out := *r.DeepCopy()
	for name, q := range map[corev1.ResourceName]string{corev1.ResourceCPU: cpu, corev1.ResourceMemory: memory} {
		if _, ok := out.Requests[name]; ok {
			continue
		}
		if _, ok := out.Limits[name]; ok {
			continue // Kubernetes requests the limit
		}
		if out.Requests == nil {
			out.Requests = corev1.ResourceList{}
		}
		out.Requests[name] = resource.MustParse(q)
	}
	return out
}
