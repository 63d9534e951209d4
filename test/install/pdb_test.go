package install

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The operator's PodDisruptionBudget: off by default, refused for one
// replica (it would block every drain or protect nothing) and for a
// minAvailable no eviction can satisfy; it selects the Deployment's pods.
func TestHelmTemplatePodDisruptionBudget(t *testing.T) {
	if n := len(ofKind(render(t, chartDir), "PodDisruptionBudget")); n != 0 {
		t.Errorf("%d PodDisruptionBudgets by default, want none", n)
	}
	for _, c := range []struct {
		set  []string
		want string
	}{
		{[]string{"podDisruptionBudget.enabled=true"}, "needs replicaCount 2 or more"},
		{[]string{"podDisruptionBudget.enabled=true", "replicaCount=2", "podDisruptionBudget.minAvailable=2"}, "is not below replicaCount 2"},
	} {
		var args []string
		for _, s := range c.set {
			args = append(args, "--set", s)
		}
		_, err := helm(t, append([]string{"template", release, chartDir}, args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("helm template --set %v: %v, want an error saying %q", c.set, err, c.want)
		}
	}

	objs := render(t, chartDir, "--set", "podDisruptionBudget.enabled=true", "--set", "replicaCount=2")
	pdb := find(t, objs, "PodDisruptionBudget", release)
	spec, _, _ := unstructured.NestedMap(pdb.Object, "spec")
	if spec["minAvailable"] != 1.0 && spec["minAvailable"] != int64(1) || spec["maxUnavailable"] != nil || spec["unhealthyPodEvictionPolicy"] != "AlwaysAllow" {
		t.Errorf("spec %v, want minAvailable 1 alone and unhealthyPodEvictionPolicy AlwaysAllow", spec)
	}
	if pdb.GetNamespace() != releaseNS {
		t.Errorf("PodDisruptionBudget in %q, want the release namespace", pdb.GetNamespace())
	}
	sel, _, _ := unstructured.NestedStringMap(pdb.Object, "spec", "selector", "matchLabels")
	podLabels, _, _ := unstructured.NestedStringMap(find(t, objs, "Deployment", release).Object, "spec", "template", "metadata", "labels")
	if len(sel) == 0 {
		t.Error("the PodDisruptionBudget selects every pod of the namespace")
	}
	for k, v := range sel {
		if podLabels[k] != v {
			t.Errorf("the PodDisruptionBudget selects %s=%s, which the operator's pods do not carry", k, v)
		}
	}

	spec, _, _ = unstructured.NestedMap(find(t, render(t, chartDir, "--set", "podDisruptionBudget.enabled=true", "--set", "replicaCount=3",
		"--set", "podDisruptionBudget.maxUnavailable=50%"), "PodDisruptionBudget", release).Object, "spec")
	if spec["maxUnavailable"] != "50%" || spec["minAvailable"] != nil {
		t.Errorf("maxUnavailable=50%%: spec %v, want maxUnavailable 50%% instead of minAvailable", spec)
	}
}
