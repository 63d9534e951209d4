package integration

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestDocsExamplesApply creates every BlastDatabase and SearchCampaign of
// the YAML examples in the docs that show whole objects (the ElasticBLAST
// migration's worked example), so an example the API server would refuse
// cannot be published.
func TestDocsExamplesApply(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	env := kubetest.Start(t)
	ctx := context.Background()
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	created := 0
	for _, doc := range []string{"docs/migrating-from-elastic-blast.md"} {
		raw, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(raw), -1) {
			for i, part := range regexp.MustCompile(`(?m)^---\s*$`).Split(m[1], -1) {
				if !strings.Contains(part, "apiVersion: blastfleet.io/") {
					continue
				}
				obj := &unstructured.Unstructured{}
				if err := yaml.UnmarshalStrict([]byte(part), &obj.Object); err != nil {
					t.Fatalf("%s, document %d: %v", doc, i, err)
				}
				obj.SetNamespace(namespace)
				if err := env.Client.Create(ctx, obj); err != nil {
					t.Errorf("%s: %s %s: %v", doc, obj.GetKind(), obj.GetName(), err)
				}
				created++
			}
		}
	}
	if created < 2 {
		t.Fatalf("found %d example objects; the worked example has a BlastDatabase and a SearchCampaign", created)
	}
}
