package controllers

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// scratchDir is where pods keep their working files (shards being built,
// cached shards): an emptyDir, since the root filesystem may be read-only
// and the home directory unwritable.
const scratchDir = "/scratch"

// scratchVolume is the emptyDir at scratchDir, bounded by limit (nil: no
// bound), and its mount.
func scratchVolume(limit *resource.Quantity) (corev1.Volume, corev1.VolumeMount) {
	return corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: limit}}},
		corev1.VolumeMount{Name: "scratch", MountPath: scratchDir}
}
