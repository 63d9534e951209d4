package pods

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Placement is where a pod runs and as whom: a campaign's
// spec.partitions settings, or a database's service account alone.
type Placement struct {
	// ServiceAccountName runs the pod, for its identity (IRSA, pod
	// identity) where stores name no Secret; its API token is never
	// mounted (Restrict).
	ServiceAccountName string
	PriorityClassName  string
	NodeSelector       map[string]string
	Tolerations        []corev1.Toleration
}

// Pod is a pod the operator creates, before it is restricted.
type Pod struct {
	Labels map[string]string
	Placement
	// RestartPolicy: empty leaves the owner's default (the MPI operator
	// sets its replicas' own).
	RestartPolicy  corev1.RestartPolicy
	InitContainers []corev1.Container
	Containers     []corev1.Container
	Volumes        []corev1.Volume
}

// Template is the pod as a template, placed and restricted (Restrict):
// the one place every pod of the operator is made.
func (p Pod) Template() corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: p.Labels},
		Spec: corev1.PodSpec{
			RestartPolicy:      p.RestartPolicy,
			ServiceAccountName: p.ServiceAccountName,
			PriorityClassName:  p.PriorityClassName,
			NodeSelector:       p.NodeSelector,
			Tolerations:        p.Tolerations,
			InitContainers:     p.InitContainers,
			Containers:         p.Containers,
			Volumes:            p.Volumes,
		},
	}
	restrict(&t.Spec)
	return t
}
