package devstack

import (
	"context"
	"slices"
	"time"

	"github.com/go-logr/logr"
	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// ownerGC stands in for kube-controller-manager's garbage collector,
// which the stack does not run, for the objects the operator creates:
// MPIJobs and Jobs whose owners (campaigns, databases) are gone are
// deleted, so "blastfleet delete" takes the partitions with the campaign
// as on a cluster. Foreground deletion is honoured too: dependents of an
// owner being deleted in the foreground go first, then the owner's
// foregroundDeletion finalizer. The orphan policy is not (its dependents
// are deleted).
type ownerGC struct {
	c     client.Client
	log   logr.Logger
	every time.Duration
}

func (g *ownerGC) run(ctx context.Context) {
	t := time.NewTicker(g.every)
	defer t.Stop()
	for {
		if err := g.sweep(ctx); err != nil && ctx.Err() == nil {
			g.log.Error(err, "garbage collection")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (g *ownerGC) sweep(ctx context.Context) error {
	var mpis kubeflow.MPIJobList
	if err := g.c.List(ctx, &mpis); err != nil {
		return err
	}
	var jobs batchv1.JobList
	if err := g.c.List(ctx, &jobs); err != nil {
		return err
	}
	var deps []client.Object
	for i := range mpis.Items {
		deps = append(deps, &mpis.Items[i])
	}
	for i := range jobs.Items {
		deps = append(deps, &jobs.Items[i])
	}
	live := map[types.UID]bool{} // owners that still hold dependents
	for _, d := range deps {
		if d.GetDeletionTimestamp() != nil || len(d.GetOwnerReferences()) == 0 {
			continue
		}
		keep := false
		for _, ref := range d.GetOwnerReferences() {
			state := g.owner(ctx, d.GetNamespace(), ref)
			if state == ownerPresent {
				keep = true
			}
			if state != ownerGone {
				live[ref.UID] = true
			}
		}
		if keep {
			continue
		}
		g.log.Info("deleting an object whose owner is gone", "kind", kindOf(d), "namespace", d.GetNamespace(), "name", d.GetName())
		if err := g.c.Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return g.finishForeground(ctx, live)
}

type ownerState int

const (
	ownerPresent  ownerState = iota
	ownerGone                // deleted, or replaced by another object of the name
	ownerDeleting            // in foreground deletion: its dependents go first
)

// owner looks ref up; an error other than NotFound counts as present, so
// a hiccup never deletes anything.
func (g *ownerGC) owner(ctx context.Context, ns string, ref metav1.OwnerReference) ownerState {
	o := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: ref.APIVersion, Kind: ref.Kind}}
	err := g.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, o)
	switch {
	case apierrors.IsNotFound(err):
		return ownerGone
	case err != nil:
		return ownerPresent
	case o.UID != ref.UID:
		return ownerGone
	case o.DeletionTimestamp != nil && slices.Contains(o.Finalizers, metav1.FinalizerDeleteDependents):
		return ownerDeleting
	}
	return ownerPresent
}

// finishForeground removes the foregroundDeletion finalizer of campaigns
// and databases being deleted once no dependent refers to them.
func (g *ownerGC) finishForeground(ctx context.Context, live map[types.UID]bool) error {
	var cs v1alpha1.SearchCampaignList
	if err := g.c.List(ctx, &cs); err != nil {
		return err
	}
	var ds v1alpha1.BlastDatabaseList
	if err := g.c.List(ctx, &ds); err != nil {
		return err
	}
	var owners []client.Object
	for i := range cs.Items {
		owners = append(owners, &cs.Items[i])
	}
	for i := range ds.Items {
		owners = append(owners, &ds.Items[i])
	}
	for _, o := range owners {
		fs := o.GetFinalizers()
		if o.GetDeletionTimestamp() == nil || !slices.Contains(fs, metav1.FinalizerDeleteDependents) || live[o.GetUID()] {
			continue
		}
		patch := client.MergeFrom(o.DeepCopyObject().(client.Object))
		o.SetFinalizers(slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return f == metav1.FinalizerDeleteDependents }))
		if err := g.c.Patch(ctx, o, patch); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func kindOf(o client.Object) string {
	switch o.(type) {
	case *kubeflow.MPIJob:
		return "MPIJob"
	case *batchv1.Job:
		return "Job"
	}
	return "?"
}
