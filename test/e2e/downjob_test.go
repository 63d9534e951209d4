package e2e

import (
	"context"
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

// startBusyJob starts a Job whose pod runs until it is killed, as a
// partition's launcher (an MPIJob's Job) runs while its campaign does,
// waits until it runs, and returns its name. Its pod carries the Job controller's
// job-tracking finalizer, which nothing removes once dev down has
// stopped the controllers: dev down must not wait for it. The image is
// MinIO's (Debian's sleep), already on the node.
func startBusyJob(t *testing.T, tg *target) string {
	t.Helper()
	ctx := context.Background()
	var minio corev1.PodList
	if err := tg.c.List(ctx, &minio, client.MatchingLabels{"app.kubernetes.io/name": "minio"}); err != nil || len(minio.Items) == 0 {
		t.Fatalf("no MinIO pod to take the image from (%v)", err)
	}
	name := tg.name("node-busy")
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tg.ns},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app.kubernetes.io/name": name}},
			Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				// The namespace enforces the restricted Pod Security Standard.
				SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532),
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
				Containers: []corev1.Container{{
					Name: "busy", Image: minio.Items[0].Spec.Containers[0].Image, Command: []string{"sleep", "3600"},
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}},
					SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
						Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
				}},
			},
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
