package integration

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestSamplesApply creates every object of config/samples, as
// kubectl apply -k config/samples would, and checks the samples fit
// together and the local stack (blastfleet dev up): the campaign searches
// the sample database; both name no endpoint (the operator's default
// store) and read the Secret and bucket the stack makes, and the inputs
// it puts there.
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
	if kinds["BlastDatabase"] != 1 || kinds["SearchCampaign"] != 1 || len(kinds) != 2 {
		t.Fatalf("created %v; want one BlastDatabase and one SearchCampaign (the stack makes the Secret: one here would replace its keys)", kinds)
	}

	var dbs v1alpha1.BlastDatabaseList
	var scs v1alpha1.SearchCampaignList
	for _, l := range []client.ObjectList{&dbs, &scs} {
		if err := c.List(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	db, sc := dbs.Items[0], scs.Items[0]
	if sc.Spec.Program != "blastp" || db.Spec.Type != v1alpha1.DatabaseProtein {
		t.Errorf("campaign program %s against a %s database; want blastp against prot", sc.Spec.Program, db.Spec.Type)
	}
	if sc.Spec.DatabaseRef.Name != db.Name {
		t.Errorf("campaign searches %q; the sample database is %q", sc.Spec.DatabaseRef.Name, db.Name)
	}
	if sc.Spec.Partitions.Count != 2 {
		t.Errorf("campaign runs %d partitions, want 2", sc.Spec.Partitions.Count)
	}
	if db.Spec.Source.Key != devstack.SampleDatabaseKey || sc.Spec.Queries.Key != devstack.SampleQueriesKey || sc.Spec.Queries.Storage != nil {
		t.Errorf("inputs %q and %q (queries storage %v); the stack provides %s and %s in the output's bucket",
			db.Spec.Source.Key, sc.Spec.Queries.Key, sc.Spec.Queries.Storage, devstack.SampleDatabaseKey, devstack.SampleQueriesKey)
	}
	for what, s := range map[string]v1alpha1.ObjectStorage{"campaign output": sc.Spec.Output, "database storage": db.Spec.Storage} {
		if s.Endpoint != "" || s.Anonymous {
			t.Errorf("%s endpoint %q (anonymous %t): want none, the operator's default store", what, s.Endpoint, s.Anonymous)
		}
		if s.Bucket != devstack.DefaultBucket {
			t.Errorf("%s bucket %q; the stack makes %q", what, s.Bucket, devstack.DefaultBucket)
		}
		ref := s.CredentialsSecretRef
		if ref == nil || ref.Name != devstack.SecretName {
			t.Errorf("%s reads Secret %v; the stack makes %s", what, ref, devstack.SecretName)
			continue
		}
		if id, key := ref.AccessKeyIDKey, ref.SecretAccessKeyKey; id != "AWS_ACCESS_KEY_ID" || key != "AWS_SECRET_ACCESS_KEY" {
			t.Errorf("%s reads keys %q and %q; the stack's Secret has AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", what, id, key)
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
