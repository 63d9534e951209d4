package kubecmd

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// campaignName takes a campaign's name also as kubectl names it, TYPE/NAME
// (what get -o name prints: searchcampaign.blastfleet.io/NAME, or bsc/NAME),
// so get -o name pipes into the other commands.
func campaignName(arg string) string {
	for _, typ := range []string{campaignResource, "searchcampaigns.blastfleet.io", "searchcampaign", "searchcampaigns", "bsc"} {
		if name, ok := strings.CutPrefix(arg, typ+"/"); ok {
			return name
		}
	}
	return arg
}

// maxNamesListed bounds the names a "not found" error lists.
const maxNamesListed = 20

// getCampaign reads one campaign; when it does not exist the error lists
// the campaigns that do, since a typo is the usual cause.
func (k *kube) getCampaign(ctx context.Context, name string) (*v1alpha1.SearchCampaign, error) {
	name = campaignName(name)
	var c v1alpha1.SearchCampaign
	err := k.c.Get(ctx, client.ObjectKey{Namespace: k.namespace, Name: name}, &c)
	if apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
		return nil, k.notFound(ctx, name)
	}
	if err != nil {
		return nil, fmt.Errorf("campaign %s/%s: %w", k.namespace, name, err)
	}
	return &c, nil
}

func (k *kube) notFound(ctx context.Context, name string) error {
	var list v1alpha1.SearchCampaignList
	if err := k.c.List(ctx, &list, client.InNamespace(k.namespace)); err != nil {
		return fmt.Errorf("campaign %q not found in namespace %q", name, k.namespace)
	}
	if len(list.Items) == 0 {
		return fmt.Errorf("campaign %q not found: namespace %q has no campaigns (%s get -A lists every namespace's; %s submit creates one)",
			name, k.namespace, k.bin, k.bin)
	}
	names := make([]string, 0, len(list.Items))
	for _, c := range list.Items {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	more := ""
	if len(names) > maxNamesListed {
		more = fmt.Sprintf(" ... and %d more", len(names)-maxNamesListed)
		names = names[:maxNamesListed]
	}
	return fmt.Errorf("campaign %q not found in namespace %q; campaigns there: %s%s", name, k.namespace, strings.Join(names, ", "), more)
}

// campaignLocation is the campaign's ledger: the status's, or where the
// operator puts it (s3://bucket/prefix/namespace/name) before it says so.
func campaignLocation(c *v1alpha1.SearchCampaign) string {
	if c.Status.Location != "" {
		return c.Status.Location
	}
	out := c.Spec.Output
	return "s3://" + out.Bucket + "/" + strings.TrimPrefix(path.Join(out.Prefix, c.Namespace, c.Name), "/")
}

// withType fills the TypeMeta the client leaves empty on typed objects,
// and drops managedFields (kubectl hides them too), for -o json|yaml.
func withType(c *v1alpha1.SearchCampaign) *v1alpha1.SearchCampaign {
	c = c.DeepCopy()
	c.APIVersion, c.Kind = v1alpha1.GroupVersion.String(), "SearchCampaign"
	c.ManagedFields = nil
	return c
}

// partition is one of a campaign's partition objects: an MPIJob, or an
// Argo Workflow for spec.executor argo.
type partition struct {
	obj            client.Object
	index, restart int
	state          string
}

// kind is the partition object's kind, as messages name it.
func (p partition) kind() string {
	if _, ok := p.obj.(*kubeflow.MPIJob); ok {
		return "MPIJob"
	}
	return argowf.Workflow.Kind
}

// partitions lists the campaign's partition objects (its executor's kind)
// by index, then restart. Objects of an earlier campaign of the same
// name (another owner) are left out.
func (k *kube) partitions(ctx context.Context, c *v1alpha1.SearchCampaign) ([]partition, error) {
	var objs []client.Object
	if c.Spec.Executor == v1alpha1.ExecutorArgo {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(argowf.WorkflowList)
		if err := k.c.List(ctx, list, client.InNamespace(c.Namespace), client.MatchingLabels{labelCampaign: c.Name}); err != nil {
			return nil, fmt.Errorf("listing campaign %s's partitions (Argo Workflows): %w", c.Name, err)
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	} else {
		var list kubeflow.MPIJobList
		if err := k.c.List(ctx, &list, client.InNamespace(c.Namespace), client.MatchingLabels{labelCampaign: c.Name}); err != nil {
			return nil, fmt.Errorf("listing campaign %s's partitions (MPIJobs): %w", c.Name, err)
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	}
	var out []partition
	for _, obj := range objs {
		if owner := metaControllerUID(obj); owner != "" && owner != string(c.UID) {
			continue
		}
		index, err1 := strconv.Atoi(obj.GetLabels()[labelPartition])
		restart, err2 := strconv.Atoi(obj.GetLabels()[labelRestart])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, partition{obj: obj, index: index, restart: restart, state: partitionState(obj)})
	}
	slices.SortFunc(out, func(a, b partition) int {
		return cmp.Or(cmp.Compare(a.index, b.index), cmp.Compare(a.restart, b.restart))
	})
	return out, nil
}

// partitionState is the state of an MPIJob or a Workflow.
func partitionState(obj client.Object) string {
	if job, ok := obj.(*kubeflow.MPIJob); ok {
		return mpiJobState(job)
	}
	return workflowState(obj.(*unstructured.Unstructured))
}

func metaControllerUID(obj client.Object) string {
	for _, ref := range obj.GetOwnerReferences() {
		if ptr.Deref(ref.Controller, false) {
			return string(ref.UID)
		}
	}
	return ""
}

// mpiJobState names an MPIJob's state as the operator counts it: a
// suspended partition (waiting for Kueue) is Queued.
func mpiJobState(job *kubeflow.MPIJob) string {
	has := func(t kubeflow.JobConditionType) bool {
		for _, c := range job.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case !job.DeletionTimestamp.IsZero():
		return "Deleting"
	case has(kubeflow.JobFailed):
		return "Failed"
	case has(kubeflow.JobSucceeded):
		return "Succeeded"
	case ptr.Deref(job.Spec.RunPolicy.Suspend, false) || has(kubeflow.JobSuspended):
		return "Queued"
	case has(kubeflow.JobRunning):
		return "Running"
	}
	return "Starting"
}
