package kubecmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

type logsOptions struct {
	partition int
	worker    int
	follow    bool
	tail      int64
}

func newLogsCmd() *cobra.Command {
	o := &logsOptions{}
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "logs NAME [--partition N] [--worker W]",
		Short: "Print a partition's launcher output (mpirun and the engine's master)",
		Long: `Print the launcher output of one of a campaign's partitions: mpirun and the
blastfleet engine's ranks, whose master logs each chunk it leases and
commits. A partition that was replaced shows its latest MPIJob.

A campaign with spec.executor argo runs each partition as an Argo
Workflow of --workers steps, each an engine with its own master: --worker W
(default 0) picks the step, and its pod's "main" container is read (the
newest pod, if Argo retried the step).

On a cluster this is the launcher pod's log: the MPI operator labels it
training.kubeflow.org/job-name=<MPIJob> and training.kubeflow.org/job-role=launcher.
On the local stack (blastfleet dev up), which runs partitions without pods,
the MPIJob's annotation blastfleet.io/launcher-log names the file the
launcher writes, and that file is read.`,
		Example: `  blastfleet logs human-vs-sprot
  blastfleet logs human-vs-sprot --partition 1 --follow
  blastfleet logs human-vs-sprot --tail 20`,
		Args: cobra.ExactArgs(1),
		RunE: kubeRun(k, o.run),
	}
	f := cmd.Flags()
	f.IntVarP(&o.partition, "partition", "p", 0, "the partition's index, from 0")
	f.IntVar(&o.worker, "worker", 0, "with spec.executor argo: the worker step of the partition's Workflow, from 0")
	f.BoolVarP(&o.follow, "follow", "f", false, "keep printing until the partition finishes")
	f.Int64Var(&o.tail, "tail", -1, "print only the last N lines (-1: all)")
	k.addFlags(cmd)
	k.completeCampaigns(cmd, false)
	return cmd
}

func (o *logsOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, args []string) error {
	c, err := kc.getCampaign(ctx, args[0])
	if err != nil {
		return err
	}
	p, err := o.pick(ctx, kc, c)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if p.kind() == argowf.Workflow.Kind {
		return o.fromStepPod(ctx, w, kc, p)
	}
	if file := p.obj.GetAnnotations()[annotationLauncherLog]; file != "" {
		return o.fromFile(ctx, w, kc, p, file)
	}
	return o.fromPod(ctx, w, kc, p)
}

// pick is the latest MPIJob (or Workflow) of the partition asked for.
func (o *logsOptions) pick(ctx context.Context, kc *kube, c *v1alpha1.SearchCampaign) (partition, error) {
	parts, err := kc.partitions(ctx, c)
	if err != nil {
		return partition{}, err
	}
	var found *partition
	var have []string
	for i := range parts {
		if parts[i].index == o.partition {
			found = &parts[i] // sorted by restart: the last is the latest
		}
		have = append(have, fmt.Sprintf("%d (%s, %s)", parts[i].index, parts[i].obj.GetName(), parts[i].state))
	}
	if found != nil {
		return *found, nil
	}
	if len(parts) == 0 {
		return partition{}, fmt.Errorf("campaign %s has no partitions now (phase %s): partitions run while it is Running; see %s",
			c.Name, orDash(string(c.Status.Phase)), kc.suggest(c.Namespace, "status "+c.Name))
	}
	return partition{}, fmt.Errorf("campaign %s has no partition %d; its partitions: %s", c.Name, o.partition, strings.Join(slices.Compact(have), ", "))
}

// fromPod streams the launcher pod's log through the API server.
func (o *logsOptions) fromPod(ctx context.Context, w io.Writer, kc *kube, p partition) error {
	cs, err := kc.clientset()
	if err != nil {
		return err
	}
	name, ns := p.obj.GetName(), p.obj.GetNamespace()
	sel := labels.SelectorFromSet(labels.Set{labelMPIJobName: name, labelMPIJobRole: mpiLauncherRole})
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return fmt.Errorf("finding the launcher pod of %s: %w", name, kc.explain(err))
	}
	if len(pods.Items) == 0 {
		return fmt.Errorf("partition %d (MPIJob %s, %s) has no launcher pod now: the MPI operator starts it once the workers are ready, "+
			"and removes it after the MPIJob finishes (see kubectl describe mpijob %s -n %s)", p.index, name, p.state, name, ns)
	}
	// The newest launcher, should the launcher Job have made more than one.
	pod := slices.MaxFunc(pods.Items, func(a, b corev1.Pod) int {
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	return o.streamPod(ctx, w, kc, &pod, "", fmt.Sprintf("launcher of partition %d, MPIJob %s", p.index, name))
}

// streamPod copies a pod's log (of container, or its only one) to w;
// what says whose pod it is, for errors.
func (o *logsOptions) streamPod(ctx context.Context, w io.Writer, kc *kube, pod *corev1.Pod, container, what string) error {
	if pod.Spec.NodeName == "" {
		// The API server answers an empty log for such a pod: say why.
		return fmt.Errorf("pod %s (%s) is not scheduled yet (%s): it has no output yet; see kubectl describe pod %s -n %s",
			pod.Name, what, pod.Status.Phase, pod.Name, pod.Namespace)
	}
	cs, err := kc.clientset()
	if err != nil {
		return err
	}
	opts := &corev1.PodLogOptions{Follow: o.follow, Container: container}
	if o.tail >= 0 {
		opts.TailLines = ptr.To(o.tail)
	}
	rc, err := cs.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, opts).Stream(ctx)
	if err != nil {
		return fmt.Errorf("log of pod %s (%s): %w", pod.Name, what, kc.explain(err))
	}
	defer rc.Close()
	if _, err := io.Copy(w, rc); err != nil && ctx.Err() == nil {
		return fmt.Errorf("log of launcher pod %s: %w", pod.Name, err)
	}
	return nil
}
