package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// busyPod is a pod that runs until it is killed (sleep ignores SIGTERM
// as a container's first process), allowed by the restricted Pod
// Security Standard of the campaigns' namespace. The image is MinIO's
// (Debian's sleep), already on the node.
func busyPod(t *testing.T, tg *target) corev1.PodSpec {
	t.Helper()
	var minio corev1.PodList
	if err := tg.c.List(context.Background(), &minio, client.MatchingLabels{"app.kubernetes.io/name": "minio"}); err != nil || len(minio.Items) == 0 {
		t.Fatalf("no MinIO pod to take the image from (%v)", err)
	}
	return corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Containers: []corev1.Container{{
			Name: "busy", Image: minio.Items[0].Spec.Containers[0].Image, Command: []string{"sleep", "3600"},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}},
			SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
		}},
	}
}

// startBusyJob starts a Job of spec's pod, as a partition's launcher (an
// MPIJob's Job) runs while its campaign does, waits until its pod runs,
// and returns its name. The pod carries the Job controller's
// job-tracking finalizer, which nothing removes once dev down has
// stopped the controllers: dev down must not wait for it.
func startBusyJob(t *testing.T, tg *target, spec corev1.PodSpec) string {
	t.Helper()
	ctx := context.Background()
	name := tg.name("node-busy")
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tg.ns},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app.kubernetes.io/name": name}},
			Spec:       spec,
		}},
	}
	if err := tg.c.Create(ctx, job); err != nil {
		t.Fatalf("creating Job %s: %v", name, err)
	}
	waitFor(t, 2*time.Minute, "the pod of Job "+name+" running", func() (bool, string) {
		var pods corev1.PodList
		if err := tg.c.List(ctx, &pods, client.InNamespace(tg.ns), client.MatchingLabels{"app.kubernetes.io/name": name}); err != nil {
			return false, err.Error()
		}
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d pods", len(pods.Items))
	})
	return name
}

// createDuringDown creates a pod of spec once dev down has deleted the
// pod of Job busy, as an operator that runs as a pod (the MPI operator),
// still reconciling in its grace period, creates a partition's workers
// Kueue admitted meanwhile: no scheduler binds it, and dev down must
// delete it too. The channel gets nil once it is created.
func createDuringDown(tg *target, busy string, spec corev1.PodSpec) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx := context.Background()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			var pods corev1.PodList
			if err := tg.c.List(ctx, &pods, client.InNamespace(tg.ns), client.MatchingLabels{"app.kubernetes.io/name": busy}); err != nil {
				continue
			}
			if len(pods.Items) == 0 || pods.Items[0].DeletionTimestamp == nil {
				continue
			}
			// In kube-system: Kueue's pod webhook, which fails closed,
			// skips it, and refuses pods elsewhere once Kueue's own pod
			// has stopped.
			late := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tg.name("node-late"), Namespace: "kube-system"}, Spec: spec}
			done <- tg.c.Create(ctx, late)
			return
		}
		done <- errors.New("dev down did not delete the pod of Job " + busy + " within a minute")
	}()
	return done
}
