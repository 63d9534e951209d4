package controllers

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// A failed Job's pods are read past the manager's cache: a cached List of
// pods would start an informer of every pod in the cluster, kept for the
// operator's life (tens of thousands of pods on a cluster at scale).
func TestFailedJobPodsReadPastTheCache(t *testing.T) {
	cached := 0
	cl := fake.NewClientBuilder().WithScheme(kubescheme.New()).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*corev1.PodList); ok {
				cached++
			}
			return cl.List(ctx, list, opts...)
		},
	}).Build()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c-plan-x", Labels: map[string]string{"job-name": "c-plan"}},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Message: "queries.fa: record 3 has no sequence", FinishedAt: metav1.Now()},
		}}}},
	}
	api := fake.NewClientBuilder().WithScheme(kubescheme.New()).WithObjects(pod).Build()
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c-plan"}}
	for _, r := range []struct {
		name          string
		pods, managed client.Reader
	}{
		{"campaigns", (&CampaignReconciler{Client: cl, Pods: api}).Pods, cl},
		{"databases", (&DatabaseReconciler{Client: cl, Pods: api}).Pods, cl},
	} {
		got := podFailure(context.Background(), podReader(r.pods, r.managed), job.Namespace, job.Name, "the Job failed")
		if got != "queries.fa: record 3 has no sequence" {
			t.Errorf("%s: the failed pod's message is %q", r.name, got)
		}
	}
	if cached != 0 {
		t.Errorf("%d pod listings through the cached client", cached)
	}
}
