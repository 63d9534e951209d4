package controllers

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/argowf"
	"github.com/blastfleet/blastfleet/internal/enginemetrics"
)

// +kubebuilder:rbac:groups=argoproj.io,resources=workflows,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=argoproj.io,resources=workflowtaskresults,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;create
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create

// ArgoExecutor runs partitions as argoproj.io/v1alpha1 Workflows: one
// step per worker, all in parallel, each a pod running the engine with
// in-process workers (no MPI, no sshd). Argo retries a step whose pod
// failed or was deleted (retryStrategy), and the engine picks up from
// the ledger; a Workflow that fails anyway is replaced by the operator
// as an MPIJob would be.
type ArgoExecutor struct {
	// TTLSecondsAfterFinished keeps finished Workflows (and their failed
	// pods' logs) this long.
	TTLSecondsAfterFinished int32
	// StepRetries is the retryStrategy's limit (0: argoStepRetries).
	StepRetries int32
}

// argoStepRetries: a step's pod deleted or evicted costs a retry, not
// the partition; past these the Workflow fails and the operator's own
// restart budget takes over.
const argoStepRetries = 3

func (ArgoExecutor) NewObject() client.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(argowf.Workflow)
	return u
}

func (ArgoExecutor) NewList() client.ObjectList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(argowf.WorkflowList)
	return l
}

func (ArgoExecutor) Items(list client.ObjectList) []client.Object {
	l := list.(*unstructured.UnstructuredList)
	out := make([]client.Object, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out
}

// The subset of Argo's Workflow spec the operator writes (field names
// as in Argo's API reference; docs/operator.md shows one).
type (
	workflowSpec struct {
		Entrypoint            string                     `json:"entrypoint"`
		Parallelism           int64                      `json:"parallelism"`
		ActiveDeadlineSeconds *int64                     `json:"activeDeadlineSeconds,omitempty"`
		PodGC                 map[string]string          `json:"podGC"`
		TTLStrategy           map[string]int32           `json:"ttlStrategy"`
		ServiceAccountName    string                     `json:"serviceAccountName"`
		SecurityContext       *corev1.PodSecurityContext `json:"securityContext,omitempty"`
		PodMetadata           map[string]any             `json:"podMetadata,omitempty"`
		PodPriorityClassName  string                     `json:"podPriorityClassName,omitempty"`
		NodeSelector          map[string]string          `json:"nodeSelector,omitempty"`
		Tolerations           []corev1.Toleration        `json:"tolerations,omitempty"`
		Volumes               []corev1.Volume            `json:"volumes,omitempty"`
		Templates             []workflowTemplate         `json:"templates"`

		// AutomountServiceAccountToken false: no container of the pods
		// gets the token of serviceAccountName (the author's choice);
		// Argo's own containers get Executor's instead.
		AutomountServiceAccountToken *bool             `json:"automountServiceAccountToken,omitempty"`
		Executor                     map[string]string `json:"executor,omitempty"`
	}
	workflowTemplate struct {
		Name          string            `json:"name"`
		Inputs        map[string]any    `json:"inputs,omitempty"`
		Steps         [][]workflowStep  `json:"steps,omitempty"`
		Container     *corev1.Container `json:"container,omitempty"`
		RetryStrategy map[string]any    `json:"retryStrategy,omitempty"`
	}
	workflowStep struct {
		Name         string            `json:"name"`
		Template     string            `json:"template"`
		Arguments    map[string]any    `json:"arguments,omitempty"`
		WithSequence map[string]string `json:"withSequence,omitempty"`
	}
)

// Build wraps the partition in a Workflow: an entrypoint whose one step
// fans out to spec.partitions.workers engine steps (parallelism: all at
// once), each with slotsPerWorker in-process BLAST workers. A partition
// of one worker keeps its name as the engine's partition id, as under
// MPI; more steps are told apart as <name>-w<i> in the ledger.
func (e ArgoExecutor) Build(s *PartitionSpec) (client.Object, error) {
	if s.Suspended {
		// The API refuses queueName with executor argo; this is a bug.
		return nil, fmt.Errorf("partition %s: Kueue admission (spec.queueName) needs executor mpijob", s.Name)
	}
	id := s.Name
	if s.Workers > 1 {
		id = s.Name + "-w{{inputs.parameters.worker}}"
	}
	args := append([]string(nil), s.Command[1:]...)
	for i := range args {
		if args[i] == "--partition-id" && i+1 < len(args) {
			args[i+1] = id
		}
	}
	// Rank 0, the master, is a goroutine beside the workers: the slots
	// are BLAST workers, as MPI ranks 1.. are.
	args = append(args, "--workers", strconv.Itoa(int(s.SlotsPerWorker)))
	env := setEnv(s.Env, enginemetrics.PartitionEnv, id)
	pod := s.PodTemplate(corev1.Container{
		Name:         "main",
		Image:        s.Image,
		Command:      s.Command[:1],
		Args:         args,
		Env:          env,
		Resources:    s.Resources,
		VolumeMounts: s.VolumeMounts,
		// One process serves the pod's metrics: the base port.
		Ports:                    metricsPorts(1),
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}, s.Volumes...)
	retries := e.StepRetries
	if retries == 0 {
		retries = argoStepRetries
	}
	ttl := e.TTLSecondsAfterFinished
	spec := workflowSpec{
		Entrypoint:  "partition",
		Parallelism: int64(s.Workers),
		// Pods that failed stay (their logs say why) until the Workflow's
		// TTL; succeeded ones go at once.
		PodGC:       map[string]string{"strategy": "OnPodSuccess"},
		TTLStrategy: map[string]int32{"secondsAfterCompletion": ttl},
		// The pods run as the campaign's account (its cloud identity
		// reaches the stores) but mount no API token: the engine needs
		// none, and the author could name a privileged account.
		ServiceAccountName: executorAccount(s.ServiceAccountName),
		// Argo's init and wait containers record each step's result
		// through the API server: they alone get the executor
		// account's token, allowed only that (Prepare).
		AutomountServiceAccountToken: ptr.To(false),
		Executor:                     executorConfig(),
		SecurityContext:              pod.Spec.SecurityContext,
		PodMetadata:                  map[string]any{"labels": toAny(s.PodLabels)},
		PodPriorityClassName:         s.PriorityClassName,
		NodeSelector:                 s.NodeSelector,
		Tolerations:                  s.Tolerations,
		Volumes:                      pod.Spec.Volumes,
		Templates: []workflowTemplate{
			{Name: "partition", Steps: [][]workflowStep{{{
				Name: "worker", Template: "engine",
				Arguments:    map[string]any{"parameters": []any{map[string]any{"name": "worker", "value": "{{item}}"}}},
				WithSequence: map[string]string{"count": strconv.Itoa(int(s.Workers))},
			}}}},
			{
				Name:      "engine",
				Inputs:    map[string]any{"parameters": []any{map[string]any{"name": "worker"}}},
				Container: &pod.Spec.Containers[0],
				// Always: a deleted pod is an Error to Argo, but one whose
				// engine saw the SIGTERM first exits non-zero (Failed).
				RetryStrategy: map[string]any{"limit": int64(retries), "retryPolicy": "Always",
					"backoff": map[string]any{"duration": "5s", "factor": int64(2), "maxDuration": "2m"}},
			},
		},
	}
	if d := s.ActiveDeadlineSeconds; d != nil {
		spec.ActiveDeadlineSeconds = d
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&spec)
	if err != nil {
		return nil, fmt.Errorf("partition %s as a Workflow: %w", s.Name, err)
	}
	wf := &unstructured.Unstructured{Object: map[string]any{"spec": obj}}
	wf.SetGroupVersionKind(argowf.Workflow)
	wf.SetName(s.Name)
	wf.SetNamespace(s.Namespace)
	wf.SetLabels(s.Labels)
	return wf, nil
}

// State maps the Workflow's status.phase to a partition phase; a
// Workflow that is Running but whose steps' pods have not started yet is
// still Queued (Starting), as an MPIJob is until its pods run.
func (ArgoExecutor) State(obj client.Object) PartitionState {
	u := obj.(*unstructured.Unstructured)
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	msg, _, _ := unstructured.NestedString(u.Object, "status", "message")
	finished := func() time.Time { return workflowFinished(u) }
	if suspended, _, _ := unstructured.NestedBool(u.Object, "spec", "suspend"); suspended {
		return PartitionState{Phase: PartitionQueued, Reason: "Suspended"}
	}
	switch phase {
	case argowf.PhaseSucceeded:
		return PartitionState{Phase: PartitionSucceeded, FinishedAt: finished(), Reason: "WorkflowSucceeded", Message: msg}
	case argowf.PhaseFailed, argowf.PhaseError:
		if msg == "" {
			msg = "Workflow " + phase
		}
		return PartitionState{Phase: PartitionFailed, FinishedAt: finished(), Reason: "Workflow" + phase, Message: msg}
	case argowf.PhaseRunning:
		if podsRunning(u) {
			return PartitionState{Phase: PartitionRunning}
		}
	}
	return PartitionState{Phase: PartitionQueued, Reason: "Starting"}
}

// podsRunning reports whether a step's pod runs (a Pod node Running).
func podsRunning(u *unstructured.Unstructured) bool {
	nodes, _, _ := unstructured.NestedMap(u.Object, "status", "nodes")
	for _, n := range nodes {
		m, ok := n.(map[string]any)
		if ok && m["type"] == "Pod" && m["phase"] == argowf.PhaseRunning {
			return true
		}
	}
	return false
}

// setEnv is env with name set to value (replaced or added).
func setEnv(env []corev1.EnvVar, name, value string) []corev1.EnvVar {
	out := make([]corev1.EnvVar, 0, len(env)+1)
	found := false
	for _, v := range env {
		if v.Name == name {
			v, found = corev1.EnvVar{Name: name, Value: value}, true
		}
		out = append(out, v)
	}
	if !found {
		out = append(out, corev1.EnvVar{Name: name, Value: value})
	}
	return out
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// executorConfig is a Workflow's spec.executor: Argo mounts the token
// of this account's service-account-token Secret (Prepare creates it)
// into its own containers only, never into the main one.
func executorConfig() map[string]string {
	return map[string]string{"serviceAccountName": argowf.ExecutorServiceAccount}
}

// executorAccount is the ServiceAccount a Workflow's pods run as: the
// campaign's spec.partitions.serviceAccountName (its identity reaches the
// stores), else the executor's own. Prepare lets either record results.
func executorAccount(sa string) string {
	if sa != "" {
		return sa
	}
	return argowf.ExecutorServiceAccount
}

// workflowFinished is when a finished Workflow ended: status.finishedAt,
// else its last node's end, else its creation. Never the time of
// observation, which moves on at every reconcile and would keep a failed
// partition's replacement backoff from ever running out.
func workflowFinished(u *unstructured.Unstructured) time.Time {
	parse := func(s string) time.Time {
		t, _ := time.Parse(time.RFC3339, s)
		return t
	}
	s, _, _ := unstructured.NestedString(u.Object, "status", "finishedAt")
	if t := parse(s); !t.IsZero() {
		return t
	}
	var last time.Time
	nodes, _, _ := unstructured.NestedMap(u.Object, "status", "nodes")
	for _, n := range nodes {
		if m, ok := n.(map[string]any); ok {
			if s, ok := m["finishedAt"].(string); ok {
				if t := parse(s); t.After(last) {
					last = t
				}
			}
		}
	}
	if !last.IsZero() {
		return last
	}
	return u.GetCreationTimestamp().Time
}
