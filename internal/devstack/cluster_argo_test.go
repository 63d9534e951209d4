package devstack

import (
	"os"
	"path/filepath"
	"testing"
)

// Argo's manifests are applied as its kustomization would: every object
// of every file, namespaced ones and ServiceAccount subjects in argo.
func TestArgoManifestsInArgoNamespace(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"role.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: argo-role\nrules: []\n",
		"bindings.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: argo-binding
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: argo-cluster-role}
subjects:
- kind: ServiceAccount
  name: argo
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: argo-cluster-role
`,
		"kustomization.yml": "resources: [role.yaml]\n", // not .yaml: not read
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := readManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range objs {
		inArgoNamespace(o)
		got[o.GetKind()] = o.GetNamespace()
		if o.GetKind() == "ClusterRoleBinding" {
			subjects := o.Object["subjects"].([]any)
			if ns := subjects[0].(map[string]any)["namespace"]; ns != argoNamespace {
				t.Errorf("subject namespace %v, want %s", ns, argoNamespace)
			}
		}
	}
	want := map[string]string{"Role": argoNamespace, "ClusterRoleBinding": "", "ClusterRole": ""}
	if len(got) != len(want) {
		t.Fatalf("objects %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s in namespace %q, want %q", k, got[k], v)
		}
	}
	if _, err := readManifests(t.TempDir()); err == nil {
		t.Error("an empty directory read without error")
	}
}
