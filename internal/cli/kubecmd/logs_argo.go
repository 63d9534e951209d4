package kubecmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// What Argo Workflows (v3) puts on the pods of a Workflow's steps: the
// Workflow's name as a label, the step's node name as an annotation
// ("<workflow>[0].worker(2:2)": the operator's withSequence item 2), and
// the step's own container is "main".
const (
	labelArgoWorkflow  = "workflows.argoproj.io/workflow"
	annotationArgoNode = "workflows.argoproj.io/node-name"
	argoMainContainer  = "main"
)

// argoWorkerItem reads the worker index from a step's node name, and
// argoAttempt the retry's number Argo appends to it ("...worker(1:1)(2)").
var (
	argoWorkerItem = regexp.MustCompile(`\.worker\((\d+):`)
	argoAttempt    = regexp.MustCompile(`\((\d+)\)$`)
)

// stepAttempt is the retry number of a step's pod (0 without retries).
func stepAttempt(pod *corev1.Pod) int {
	m := argoAttempt.FindStringSubmatch(pod.Annotations[annotationArgoNode])
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// workflowState names a Workflow's state as the operator counts it
// (argo.Executor.State in controllers/executor/argo): Running once a step's pod runs.
func workflowState(u *unstructured.Unstructured) string {
	if !u.GetDeletionTimestamp().IsZero() {
		return "Deleting"
	}
	if suspended, _, _ := unstructured.NestedBool(u.Object, "spec", "suspend"); suspended {
		return "Queued"
	}
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	switch phase {
	case argowf.PhaseSucceeded:
		return "Succeeded"
	case argowf.PhaseFailed, argowf.PhaseError:
		return "Failed"
	case argowf.PhaseRunning:
		nodes, _, _ := unstructured.NestedMap(u.Object, "status", "nodes")
		for _, n := range nodes {
			if m, ok := n.(map[string]any); ok && m["type"] == "Pod" && m["phase"] == argowf.PhaseRunning {
				return "Running"
			}
		}
	}
	return "Starting"
}

// fromStepPod streams the engine's output from the pod of worker step
// o.worker of a Workflow partition: its master logs each chunk it leases
// and commits, as an MPI launcher's does. A step Argo retried has a pod
// per attempt: the latest is read.
func (o *logsOptions) fromStepPod(ctx context.Context, w io.Writer, kc *kube, p partition) error {
	cs, err := kc.clientset()
	if err != nil {
		return err
	}
	name, ns := p.obj.GetName(), p.obj.GetNamespace()
	sel := labels.SelectorFromSet(labels.Set{labelArgoWorkflow: name})
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return fmt.Errorf("finding the step pods of Workflow %s: %w", name, kc.explain(err))
	}
	var steps []corev1.Pod
	workers := map[int]bool{}
	for _, pod := range pods.Items {
		m := argoWorkerItem.FindStringSubmatch(pod.Annotations[annotationArgoNode])
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		workers[i] = true
		if i == o.worker {
			steps = append(steps, pod)
		}
	}
	if len(steps) == 0 {
		have := "none now: Argo starts them once the Workflow runs, and removes a step's pod when it succeeds"
		if len(workers) > 0 {
			have = fmt.Sprint(slices.Sorted(maps.Keys(workers)))
		}
		return fmt.Errorf("partition %d (Workflow %s, %s) has no pod of worker step %d; its step pods' workers: %s (see kubectl describe workflow %s -n %s)",
			p.index, name, p.state, o.worker, have, name, ns)
	}
	// The latest retry: creation times have only seconds.
	pod := slices.MaxFunc(steps, func(a, b corev1.Pod) int {
		return cmp.Or(cmp.Compare(stepAttempt(&a), stepAttempt(&b)), a.CreationTimestamp.Compare(b.CreationTimestamp.Time))
	})
	return o.streamPod(ctx, w, kc, &pod, argoMainContainer, fmt.Sprintf("worker step %d of partition %d, Workflow %s", o.worker, p.index, name))
}
