package pods

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// workerUID is the worker image's user (mpiuser in images/worker), as
// in the MPI operator's own base images.
const workerUID = 1000

// tmpDir is an emptyDir: the root filesystem is read-only, and mpirun,
// sshd and BLAST write their session, pid and temporary files here.
const (
	tmpDir       = "/tmp"
	tmpSizeLimit = "1Gi"
)

// restrict makes every pod the operator creates pass the restricted
// Pod Security Standard: non-root as the worker image's user,
// RuntimeDefault seccomp, no capabilities, no privilege escalation, a
// read-only root filesystem with /tmp on an emptyDir, and no service
// account token (no pod of ours talks to the API server: the MPI
// operator's v2beta1 launcher reaches workers over SSH, not kubectl exec,
// and Argo's own containers get the executor's token, package argo). fsGroup makes
// the emptyDirs and the MPI operator's SSH key Secret readable by it.
func restrict(spec *corev1.PodSpec) {
	spec.AutomountServiceAccountToken = ptr.To(false)
	spec.SecurityContext = &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		RunAsUser:      ptr.To[int64](workerUID),
		RunAsGroup:     ptr.To[int64](workerUID),
		FSGroup:        ptr.To[int64](workerUID),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == "tmp" }) {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse(tmpSizeLimit))}}})
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			c := &cs[i]
			c.SecurityContext = &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false),
				ReadOnlyRootFilesystem:   ptr.To(true),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			}
			if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "tmp" }) {
				c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "tmp", MountPath: tmpDir})
			}
		}
	}
}
