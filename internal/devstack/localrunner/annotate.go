package localrunner

import (
	"context"
	"encoding/json"
	"fmt"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// annotateLauncherLog records the launcher log's path on the MPIJob
// (AnnotationLauncherLog) before the launcher starts, so "blastfleet logs"
// finds it as soon as the MPIJob is Running. The patch goes through a
// copy, so the caller's in-memory status and defaulted spec stay; only the
// resourceVersion is carried over, for the status write that follows.
func (r *Runner) annotateLauncherLog(ctx context.Context, job *kubeflow.MPIJob) error {
	path := r.LauncherLog(job.Namespace, job.Name)
	if job.Annotations[AnnotationLauncherLog] == path {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{AnnotationLauncherLog: path}}})
	if err != nil {
		return err
	}
	cp := &kubeflow.MPIJob{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name}}
	if err := r.client.Patch(ctx, cp, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("annotating MPIJob %s/%s with its launcher log: %w", job.Namespace, job.Name, err)
	}
	if job.Annotations == nil {
		job.Annotations = map[string]string{}
	}
	job.Annotations[AnnotationLauncherLog] = path
	job.ResourceVersion = cp.ResourceVersion
	return nil
}
