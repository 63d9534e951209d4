package controllers

import corev1 "k8s.io/api/core/v1"

// setEnv is env with name set to value (replaced or added).
func setEnv(env []corev1.EnvVar, name, value string) []corev1.EnvVar {
	out := make([]corev1.EnvVar, 0, len(env)+1)
	found := false
	for _, v := range env {
		if v.Name == name {
			v, found = corev1.EnvVar{Name: name, Value: value}, true
		}
		out = append(out, v)
	}
	if !found {
		out = append(out, corev1.EnvVar{Name: name, Value: value})
	}
	return out
}
