package controllers

import (
	"reflect"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
)

func transformOf(t *testing.T, obj client.Object) func(any) (any, error) {
	t.Helper()
	for o, by := range CacheOptions().ByObject {
		if reflect.TypeOf(o) == reflect.TypeOf(obj) && by.Transform != nil {
			return by.Transform
		}
	}
	t.Fatalf("no cache transform for %T", obj)
	return nil
}

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "worker", Image: "worker:test",
		Env: []corev1.EnvVar{{Name: "BLASTFLEET_CAMPAIGN", Value: "c"}}}}}}
}

// The cache keeps an MPIJob's metadata, run policy and status, which the
// reconcilers read, and drops its pod templates and managed fields.
func TestCacheTrimsMPIJobs(t *testing.T) {
	at := metav1.Now()
	job := &kubeflow.MPIJob{
		ObjectMeta: metav1.ObjectMeta{Name: "c-p0-r0", Labels: map[string]string{"blastfleet.io/campaign": "c"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "blastfleet"}}},
		Spec: kubeflow.MPIJobSpec{SlotsPerWorker: ptr.To[int32](2), RunPolicy: kubeflow.RunPolicy{Suspend: ptr.To(true)},
			MPIReplicaSpecs: map[kubeflow.MPIReplicaType]*kubeflow.ReplicaSpec{
				kubeflow.MPIReplicaTypeLauncher: {Replicas: ptr.To[int32](1), Template: podTemplate()},
				kubeflow.MPIReplicaTypeWorker:   {Replicas: ptr.To[int32](2), Template: podTemplate()},
			}},
		Status: kubeflow.JobStatus{Conditions: []kubeflow.JobCondition{{Type: kubeflow.JobSuspended, Status: corev1.ConditionTrue, LastTransitionTime: at}}},
	}
	want := mpijob.Executor{}.State(job.DeepCopy())
	out, err := transformOf(t, job)(job)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*kubeflow.MPIJob)
	for k, r := range got.Spec.MPIReplicaSpecs {
		if len(r.Template.Spec.Containers) != 0 {
			t.Errorf("%s: the pod template is cached", k)
		}
		if r.Replicas == nil {
			t.Errorf("%s: replicas dropped", k)
		}
	}
	if got.ManagedFields != nil {
		t.Error("managed fields are cached")
	}
	if got.Labels["blastfleet.io/campaign"] != "c" || len(got.Status.Conditions) != 1 || !ptr.Deref(got.Spec.RunPolicy.Suspend, false) {
		t.Errorf("metadata, run policy or status dropped: %+v", got)
	}
	if s := (mpijob.Executor{}).State(got); s != want {
		t.Errorf("the partition's state from the cache is %+v, from the object %+v", s, want)
	}
}

// A Job keeps its metadata, completions and status, and loses its pod
// template.
func TestCacheTrimsJobs(t *testing.T) {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "c-plan", Labels: map[string]string{"blastfleet.io/campaign": "c"}},
		Spec:       batchv1.JobSpec{Completions: ptr.To[int32](4), Template: podTemplate()},
		Status:     batchv1.JobStatus{Succeeded: 3, CompletedIndexes: "0-2"},
	}
	out, err := transformOf(t, job)(job)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*batchv1.Job)
	if len(got.Spec.Template.Spec.Containers) != 0 {
		t.Error("the pod template is cached")
	}
	if ptr.Deref(got.Spec.Completions, 0) != 4 || got.Status.Succeeded != 3 || got.Status.CompletedIndexes != "0-2" || got.Labels["blastfleet.io/campaign"] != "c" {
		t.Errorf("metadata, completions or status dropped: %+v", got)
	}
}
