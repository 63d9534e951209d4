package integration

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/kubetest"
	"github.com/blastfleet/blastfleet/internal/testenv"
)

// TestSamplesApply creates every object of config/samples, as
// kubectl apply -k config/samples would, and checks the samples fit
// together: the campaign searches the sample database, and both read the
// sample Secret's keys.
func TestSamplesApply(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "config/samples")

	// kustomization.yaml lists every sample, and only samples.
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kustomization struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &kustomization); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var samples []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			samples = append(samples, b)
		}
	}
	if listed := slices.Sorted(slices.Values(kustomization.Resources)); !slices.Equal(listed, samples) {
		t.Fatalf("kustomization.yaml lists %v; config/samples holds %v", listed, samples)
	}

	env := kubetest.Start(t)
	ctx, c := context.Background(), env.Client
	kinds := map[string]int{}
	for _, name := range kustomization.Resources {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(raw), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			obj := &unstructured.Unstructured{}
			if err := yaml.UnmarshalStrict([]byte(doc), &obj.Object); err != nil {
				t.Fatalf("%s, document %d: %v", name, i, err)
			}
			if obj.GetNamespace() != "" {
				t.Errorf("%s: %s sets a namespace; samples go where they are applied", name, obj.GetName())
			}
			obj.SetNamespace(namespace)
			if err := c.Create(ctx, obj); err != nil {
				t.Errorf("%s: creating %s %s: %v", name, obj.GetKind(), obj.GetName(), err)
				continue
			}
			kinds[obj.GetKind()]++
		}
	}
	if t.Failed() {
		return
	}
	if kinds["Secret"] != 1 || kinds["BlastDatabase"] != 1 || kinds["SearchCampaign"] != 1 {
		t.Fatalf("created %v; want one Secret, one BlastDatabase and one SearchCampaign", kinds)
	}

	var dbs v1alpha1.BlastDatabaseList
	var scs v1alpha1.SearchCampaignList
	var secrets corev1.SecretList
	for _, l := range []client.ObjectList{&dbs, &scs, &secrets} {
		if err := c.List(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	db, sc := dbs.Items[0], scs.Items[0]
	var secret *corev1.Secret
	for i := range secrets.Items {
		if secrets.Items[i].Name == "minio-credentials" {
			secret = &secrets.Items[i]
		}
	}
	if secret == nil {
		t.Fatalf("no Secret minio-credentials among %d", len(secrets.Items))
	}

	if sc.Spec.Program != "blastp" || db.Spec.Type != v1alpha1.DatabaseProtein {
		t.Errorf("campaign program %s against a %s database; want blastp against prot", sc.Spec.Program, db.Spec.Type)
	}
	if sc.Spec.DatabaseRef.Name != db.Name {
		t.Errorf("campaign searches %q; the sample database is %q", sc.Spec.DatabaseRef.Name, db.Name)
	}
	if sc.Spec.Partitions.Count != 2 {
		t.Errorf("campaign runs %d partitions, want 2", sc.Spec.Partitions.Count)
	}
	for what, s := range map[string]v1alpha1.ObjectStorage{"campaign output": sc.Spec.Output, "database storage": db.Spec.Storage} {
		if !strings.HasPrefix(s.Endpoint, "http://minio.") {
			t.Errorf("%s endpoint %q: want the MinIO service", what, s.Endpoint)
		}
		ref := s.CredentialsSecretRef
		if ref.Name != secret.Name {
			t.Errorf("%s reads Secret %q; the sample Secret is %q", what, ref.Name, secret.Name)
		}
		for _, k := range []string{ref.AccessKeyIDKey, ref.SecretAccessKeyKey} {
			if len(secret.Data[k]) == 0 {
				t.Errorf("%s reads key %q, which the sample Secret does not have", what, k)
			}
		}
	}
}

// stripComments drops YAML comment lines.
func stripComments(doc string) string {
	var keep []string
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
