package devstack

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dev down waits only for pods the kubelet has yet to stop: a deleted pod
// in a terminal phase, kept by a finalizer whose controller is already
// stopped (an MPIJob launcher's job-tracking one), does not hold it up
// until the timeout, and a pod not yet deleted or still running does.
func TestPodsRunning(t *testing.T) {
	now := metav1.Now()
	pod := func(name string, deleted bool, phase corev1.PodPhase, finalizers ...string) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Finalizers: finalizers},
			Status: corev1.PodStatus{Phase: phase}}
		if deleted {
			p.DeletionTimestamp = &now
		}
		return p
	}
	pods := []corev1.Pod{
		pod("launcher-stopped", true, corev1.PodFailed, "batch.kubernetes.io/job-tracking"),
		pod("step-done", true, corev1.PodSucceeded, "workflows.argoproj.io/status"),
		pod("worker-stopping", true, corev1.PodRunning),
		pod("minio-not-deleted", false, corev1.PodRunning),
		pod("job-done-not-deleted", false, corev1.PodSucceeded),
		pod("pending-deleted", true, corev1.PodPending),
	}
	got := podsRunning(pods)
	want := []string{`default/worker-stopping (Running on "", finalizers [])`, `default/minio-not-deleted (Running on "", finalizers [])`,
		`default/job-done-not-deleted (Succeeded on "", finalizers [])`, `default/pending-deleted (Pending on "", finalizers [])`}
	if !slices.Equal(got, want) {
		t.Errorf("podsRunning = %q, want %q", got, want)
	}
	if left := podsRunning(pods[:2]); len(left) != 0 {
		t.Errorf("stopped pods kept by finalizers count as running: %q", left)
	}
}
