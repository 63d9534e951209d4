package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Template places the pod as asked and restricts every container, init
// containers too, with one /tmp each.
func TestTemplateRestrictsEveryContainer(t *testing.T) {
	tol := corev1.Toleration{Key: "blast", Operator: corev1.TolerationOpExists}
	p := Pod{
		Labels:         map[string]string{"app": "x"},
		Placement:      Placement{ServiceAccountName: "reader", PriorityClassName: "batch", NodeSelector: map[string]string{"pool": "blast"}, Tolerations: []corev1.Toleration{tol}},
		RestartPolicy:  corev1.RestartPolicyNever,
		InitContainers: []corev1.Container{{Name: "wait"}},
		Containers:     []corev1.Container{{Name: "main"}},
	}
	tmpl := p.Template()
	s := tmpl.Spec
	if tmpl.Labels["app"] != "x" || s.ServiceAccountName != "reader" || s.PriorityClassName != "batch" || s.NodeSelector["pool"] != "blast" ||
		len(s.Tolerations) != 1 || s.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("placement lost: %+v", tmpl)
	}
	if s.AutomountServiceAccountToken == nil || *s.AutomountServiceAccountToken || s.SecurityContext == nil || !*s.SecurityContext.RunAsNonRoot {
		t.Errorf("pod not restricted: %+v", s)
	}
	tmp := 0
	for _, v := range s.Volumes {
		if v.Name == "tmp" {
			tmp++
		}
	}
	if tmp != 1 {
		t.Errorf("%d tmp volumes, want 1", tmp)
	}
	for _, c := range append(s.InitContainers, s.Containers...) {
		if c.SecurityContext == nil || !*c.SecurityContext.ReadOnlyRootFilesystem || *c.SecurityContext.AllowPrivilegeEscalation {
			t.Errorf("container %s not restricted: %+v", c.Name, c.SecurityContext)
		}
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != tmpDir {
			t.Errorf("container %s mounts %v, want /tmp alone", c.Name, c.VolumeMounts)
		}
	}
}
