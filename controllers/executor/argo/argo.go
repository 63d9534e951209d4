// Package argo is the executor that runs partitions as Argo Workflows
// (argoproj.io/v1alpha1, built as unstructured objects: package argowf
// says why), and the Workflow types the database builds share.
package argo

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// +kubebuilder:rbac:groups=argoproj.io,resources=workflows,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=argoproj.io,resources=workflowtaskresults,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;create
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create

// Executor runs partitions as argoproj.io/v1alpha1 Workflows: one
// step per worker, all in parallel, each a pod running the engine with
// in-process workers (no MPI, no sshd). Argo retries a step whose pod
// failed or was deleted (retryStrategy), and the engine picks up from
// the ledger; a Workflow that fails anyway is replaced by the operator
// as an MPIJob would be.
type Executor struct {
	// TTLSecondsAfterFinished keeps finished Workflows (and their failed
	// pods' logs) this long.
	TTLSecondsAfterFinished int32
	// StepRetries is the retryStrategy's limit (0: DefaultStepRetries).
	StepRetries int32
}

// DefaultStepRetries: a step's pod deleted or evicted costs a retry, not
// the partition; past these the Workflow fails and the operator's own
// restart budget takes over.
const DefaultStepRetries = 3

// ErrMissing: a campaign asks for executor argo on a cluster whose API
// server has no argoproj.io Workflow kind (or had none when the operator
// started).
var ErrMissing = errors.New("spec.executor is argo but Argo Workflows is not installed: the API server had no workflows.argoproj.io when the operator started (install Argo Workflows, then restart the operator; docs/operator.md)")

func (Executor) Kind() v1alpha1.ExecutorKind { return v1alpha1.ExecutorArgo }

func (Executor) NewObject() client.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(argowf.Workflow)
	return u
}

func (Executor) NewList() client.ObjectList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(argowf.WorkflowList)
	return l
}

func (Executor) Items(list client.ObjectList) []client.Object {
	return executor.Objects(list.(*unstructured.UnstructuredList).Items)
}

// Build wraps the partition in a Workflow: an entrypoint whose one step
// fans out to spec.partitions.workers engine steps (parallelism: all at
// once), each with slotsPerWorker in-process BLAST workers. A partition
// of one worker keeps its name as the engine's partition id, as under
// MPI; more steps are told apart as <name>-w<i> in the ledger.
func (e Executor) Build(s *executor.PartitionSpec) (client.Object, error) {
	if s.Suspended {
		// The API refuses queueName with executor argo; this is a bug.
		return nil, fmt.Errorf("partition %s: Kueue admission (spec.queueName) needs executor mpijob", s.Name)
	}
	eng := s.Engine
	if s.Workers > 1 {
		eng.PartitionID += "-w{{inputs.parameters.worker}}"
	}
	// Rank 0, the master, is a goroutine beside the workers: the slots
	// are BLAST workers, as MPI ranks 1.. are.
	eng.Workers = s.SlotsPerWorker
	argv := eng.Argv()
	pod := s.PodTemplate(corev1.Container{
		Name:         "main",
		Image:        s.Image,
		Command:      argv[:1],
		Args:         argv[1:],
		Env:          s.EnvFor(eng),
		Resources:    s.Resources,
		VolumeMounts: s.VolumeMounts,
		// One process serves the pod's metrics: the base port.
		Ports:                    executor.MetricsPorts(1),
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}, s.Volumes...)
	retries := e.StepRetries
	if retries == 0 {
		retries = DefaultStepRetries
	}
	spec := WorkflowSpec{
		Entrypoint:  "partition",
		Parallelism: int64(s.Workers),
		// Pods that failed stay (their logs say why) until the Workflow's
		// TTL; succeeded ones go at once.
		PodGC:                 map[string]string{"strategy": "OnPodSuccess"},
		TTLStrategy:           map[string]int32{"secondsAfterCompletion": e.TTLSecondsAfterFinished},
		ActiveDeadlineSeconds: s.ActiveDeadlineSeconds,
		Templates: []Template{
			{Name: "partition", Steps: [][]Step{{{
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
	// The pods run as the campaign's account (its cloud identity reaches
	// the stores) but mount no API token.
	spec.RunPods(pod)
	wf, err := NewWorkflow(s.Name, s.Namespace, s.Labels, &spec)
	if err != nil {
		return nil, fmt.Errorf("partition %w", err)
	}
	return wf, nil
}

// State maps the Workflow's status.phase to a partition phase; a
// Workflow that is Running but whose steps' pods have not started yet is
// still Queued (Starting), as an MPIJob is until its pods run.
func (Executor) State(obj client.Object) executor.State {
	u := obj.(*unstructured.Unstructured)
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	msg, _, _ := unstructured.NestedString(u.Object, "status", "message")
	finished := func() time.Time { return workflowFinished(u) }
	if suspended, _, _ := unstructured.NestedBool(u.Object, "spec", "suspend"); suspended {
		return executor.State{Phase: executor.Queued, Reason: "Suspended"}
	}
	switch phase {
	case argowf.PhaseSucceeded:
		return executor.State{Phase: executor.Succeeded, FinishedAt: finished(), Reason: "WorkflowSucceeded", Message: msg}
	case argowf.PhaseFailed, argowf.PhaseError:
		if msg == "" {
			msg = "Workflow " + phase
		}
		return executor.State{Phase: executor.Failed, FinishedAt: finished(), Reason: "Workflow" + phase, Message: msg}
	case argowf.PhaseRunning:
		if podsRunning(u) {
			return executor.State{Phase: executor.Running}
		}
	}
	return executor.State{Phase: executor.Queued, Reason: "Starting"}
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
