package argo

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// The subset of Argo's Workflow spec the operator writes (field names
// as in Argo's API reference; docs/operator.md shows one): partitions
// here, databases' builds in the database reconciler.
type (
	WorkflowSpec struct {
		Entrypoint            string                     `json:"entrypoint"`
		Parallelism           int64                      `json:"parallelism"`
		ActiveDeadlineSeconds *int64                     `json:"activeDeadlineSeconds,omitempty"`
		PodGC                 map[string]string          `json:"podGC"`
		TTLStrategy           map[string]int32           `json:"ttlStrategy"`
		ServiceAccountName    string                     `json:"serviceAccountName"`
		SecurityContext       *corev1.PodSecurityContext `json:"securityContext,omitempty"`
		PodMetadata           *PodMetadata               `json:"podMetadata,omitempty"`
		PodPriorityClassName  string                     `json:"podPriorityClassName,omitempty"`
		NodeSelector          map[string]string          `json:"nodeSelector,omitempty"`
		Tolerations           []corev1.Toleration        `json:"tolerations,omitempty"`
		Volumes               []corev1.Volume            `json:"volumes,omitempty"`
		Templates             []Template                 `json:"templates"`

		// AutomountServiceAccountToken false: no container of the pods
		// gets the token of serviceAccountName (the author's choice);
		// Argo's own containers get Executor's instead.
		AutomountServiceAccountToken *bool             `json:"automountServiceAccountToken,omitempty"`
		Executor                     map[string]string `json:"executor,omitempty"`
	}
	PodMetadata struct {
		Labels map[string]string `json:"labels,omitempty"`
	}
	Template struct {
		Name          string            `json:"name"`
		Inputs        map[string]any    `json:"inputs,omitempty"`
		Steps         [][]Step          `json:"steps,omitempty"`
		Container     *corev1.Container `json:"container,omitempty"`
		RetryStrategy map[string]any    `json:"retryStrategy,omitempty"`
	}
	Step struct {
		Name         string            `json:"name"`
		Template     string            `json:"template"`
		Arguments    map[string]any    `json:"arguments,omitempty"`
		WithSequence map[string]string `json:"withSequence,omitempty"`
	}
)

// RunPods makes the Workflow's pods run as pod does (a template from
// package pods): its labels, placement, restricted security context and
// volumes, and its service account, else the executor's. No container of
// them mounts an API token: the engine needs none, and the author could
// name a privileged account. Argo's init and wait containers record each
// step's result through the API server: they alone get the executor
// account's token, allowed only that (Prepare).
func (s *WorkflowSpec) RunPods(pod corev1.PodTemplateSpec) {
	s.ServiceAccountName = executorAccount(pod.Spec.ServiceAccountName)
	s.AutomountServiceAccountToken = ptr.To(false)
	s.Executor = map[string]string{"serviceAccountName": argowf.ExecutorServiceAccount}
	s.SecurityContext = pod.Spec.SecurityContext
	s.PodMetadata = &PodMetadata{Labels: pod.Labels}
	s.PodPriorityClassName = pod.Spec.PriorityClassName
	s.NodeSelector = pod.Spec.NodeSelector
	s.Tolerations = pod.Spec.Tolerations
	s.Volumes = pod.Spec.Volumes
}

// executorAccount is the ServiceAccount a Workflow's pods run as: the
// campaign's or database's own (its identity reaches the stores), else
// the executor's. Prepare lets either record results.
func executorAccount(sa string) string {
	if sa != "" {
		return sa
	}
	return argowf.ExecutorServiceAccount
}

// NewWorkflow is a Workflow of spec, ready to create.
func NewWorkflow(name, namespace string, labels map[string]string, spec *WorkflowSpec) (*unstructured.Unstructured, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(spec)
	if err != nil {
		return nil, fmt.Errorf("%s as a Workflow: %w", name, err)
	}
	wf := &unstructured.Unstructured{Object: map[string]any{"spec": obj}}
	wf.SetGroupVersionKind(argowf.Workflow)
	wf.SetName(name)
	wf.SetNamespace(namespace)
	wf.SetLabels(labels)
	return wf, nil
}
