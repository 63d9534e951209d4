package install

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// keepPolicy is the annotation with which helm uninstall leaves an object.
const keepPolicy = "helm.sh/resource-policy"

// withoutChartMetadata is a copy of a CRD the chart renders without what
// the chart adds to config/crd/bases' object: its labels and keep policy.
func withoutChartMetadata(crd *unstructured.Unstructured) *unstructured.Unstructured {
	c := crd.DeepCopy()
	c.SetLabels(nil)
	a := c.GetAnnotations()
	delete(a, keepPolicy)
	c.SetAnnotations(a)
	return c
}

// configCRDs are the CRDs controller-gen writes.
func configCRDs(t testing.TB) []*unstructured.Unstructured {
	t.Helper()
	paths, err := filepath.Glob(rootPath(t, crdBases+"/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, p := range paths {
		out = append(out, ofKind(objectsFromFile(t, p), "CustomResourceDefinition")...)
	}
	if len(out) == 0 {
		t.Fatalf("no CRDs in %s", crdBases)
	}
	return out
}

// upgradeField is the SearchCampaign spec field the previous chart's copy
// is made to lack, standing for any field a new version adds.
const upgradeField = "activeDeadlineSeconds"

// TestHelmCRDLifecycle follows the CRDs through a release's life on a real
// API server: crds.create=false installs none; an upgrade from the
// previous chart version (whose CRD lacks a field) serves the current
// CRDs, so campaigns keep the field where the old CRD pruned it; a
// rollback leaves kept CRDs the old chart did not render; helm uninstall,
// and an upgrade turning crds.create off, keep the CRDs and the campaigns;
// with crds.keep=false helm uninstall deletes them.
func TestHelmCRDLifecycle(t *testing.T) {
	start := time.Now()
	c := startCluster(t)
	ctx := context.Background()
	kc := []string{"--kubeconfig", c.kubeconfig}
	crds := configCRDs(t)
	for _, ns := range []string{releaseNS, "research"} {
		if err := c.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	served := func(crd *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(crd.GroupVersionKind())
		return got, c.client.Get(ctx, client.ObjectKey{Name: crd.GetName()}, got)
	}

	// crds.create=false: no CRD in the release, none on the server.
	mustHelm(t, append([]string{"install", "no-crds", chartDir, "--namespace", releaseNS, "--set", "crds.create=false"}, kc...)...)
	manifest := objects(t, mustHelm(t, append([]string{"get", "manifest", "no-crds", "--namespace", releaseNS}, kc...)...))
	if len(ofKind(manifest, "Deployment")) != 1 || len(ofKind(manifest, "CustomResourceDefinition")) != 0 {
		t.Errorf("crds.create=false: the release holds %s; want the operator and no CRD", describe(manifest))
	}
	for _, crd := range crds {
		if _, err := served(crd); !apierrors.IsNotFound(err) {
			t.Errorf("crds.create=false: CRD %s: %v, want not found", crd.GetName(), err)
		}
	}
	mustHelm(t, append([]string{"uninstall", "no-crds", "--namespace", releaseNS, "--wait", "--timeout", "60s"}, kc...)...)

	// The previous chart version, its SearchCampaign CRD without the
	// field, with a value of the user's to carry through the upgrade.
	old, version := previousChart(t)
	dropSpecField(t, old, "blastfleet.io_searchcampaigns.yaml", upgradeField)
	mustHelm(t, append([]string{"install", release, old, "--namespace", releaseNS, "--set", "operator.logLevel=debug"}, kc...)...)
	campaignCRD := find(t, crds, "CustomResourceDefinition", "searchcampaigns.blastfleet.io")
	if got, err := served(campaignCRD); err != nil || specHasField(got, upgradeField) {
		t.Fatalf("chart %s installed CRD %s with spec.%s (%v): the upgrade below would prove nothing", version, campaignCRD.GetName(), upgradeField, err)
	}
	serveCampaign(t, c, "before", false)

	// The documented upgrade: the new chart's defaults with the release's
	// values; from a chart whose CRDs sat in crds/ (not the release's),
	// --take-ownership lets the release adopt them.
	upgrade := append([]string{"upgrade", release, chartDir, "--namespace", releaseNS, "--reset-then-reuse-values"}, kc...)
	_, err := os.Stat(filepath.Join(old, "crds"))
	oldCRDsDir := err == nil
	if oldCRDsDir {
		mustHelm(t, append(upgrade, "--take-ownership")...)
	} else {
		mustHelm(t, upgrade...)
	}
	rendered := ofKind(render(t, chartDir), "CustomResourceDefinition")
	for _, crd := range crds {
		got, err := served(crd)
		if err != nil {
			t.Fatalf("after helm upgrade from %s, CRD %s: %v", version, crd.GetName(), err)
		}
		gotVersions, _, _ := unstructured.NestedSlice(got.Object, "spec", "versions")
		wantVersions, _, _ := unstructured.NestedSlice(find(t, rendered, "CustomResourceDefinition", crd.GetName()).Object, "spec", "versions")
		if !deepEqual(gotVersions, wantVersions) {
			t.Errorf("after helm upgrade from %s, CRD %s serves other versions or schemas than the chart's", version, crd.GetName())
		}
		if got.GetAnnotations()[keepPolicy] != "keep" || got.GetAnnotations()["meta.helm.sh/release-name"] != release {
			t.Errorf("after helm upgrade from %s, CRD %s: annotations %v, want the keep policy and the release's", version, crd.GetName(), got.GetAnnotations())
		}
	}
	serveCampaign(t, c, "after", true)
	dep := find(t, objects(t, mustHelm(t, append([]string{"get", "manifest", release, "--namespace", releaseNS}, kc...)...)), "Deployment", release)
	cs, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	if args, _ := cs[0].(map[string]any)["args"].([]any); !slices.Contains(args, any("--zap-log-level=debug")) {
		t.Errorf("after helm upgrade --reset-then-reuse-values, manager args %v lost operator.logLevel=debug", args)
	}

	// helm rollback to the previous version applies its CRDs, or, if they
	// sat in crds/ (in no release's manifest), leaves the kept ones as they
	// are. Upgraded again, the release has them back.
	mustHelm(t, append([]string{"rollback", release, "1", "--namespace", releaseNS}, kc...)...)
	if got, err := served(campaignCRD); err != nil || specHasField(got, upgradeField) != oldCRDsDir {
		t.Errorf("after helm rollback to chart %s (CRDs in crds/: %v), CRD %s: %v, spec.%s served: %v",
			version, oldCRDsDir, campaignCRD.GetName(), err, upgradeField, got != nil && specHasField(got, upgradeField))
	}
	mustHelm(t, upgrade...)
	if got, err := served(campaignCRD); err != nil || !specHasField(got, upgradeField) {
		t.Errorf("upgraded again after the rollback, CRD %s: %v, lacks spec.%s", campaignCRD.GetName(), err, upgradeField)
	}

	// helm uninstall keeps the CRDs and the campaigns.
	mustHelm(t, append([]string{"uninstall", release, "--namespace", releaseNS, "--wait", "--timeout", "60s"}, kc...)...)
	for _, crd := range crds {
		if _, err := served(crd); err != nil {
			t.Errorf("after helm uninstall, CRD %s: %v (crds.keep is on)", crd.GetName(), err)
		}
	}
	campaign := &unstructured.Unstructured{}
	campaign.SetAPIVersion("blastfleet.io/v1alpha1")
	campaign.SetKind("SearchCampaign")
	if err := c.client.Get(ctx, client.ObjectKey{Namespace: "research", Name: "after"}, campaign); err != nil {
		t.Errorf("after helm uninstall, campaign research/after: %v", err)
	}

	// Installed again: the kept CRDs carry this release's name, so helm
	// takes them back. An upgrade turning crds.create off leaves them too
	// (the release no longer has them; turned on again, it takes them
	// back).
	mustHelm(t, append([]string{"install", release, chartDir, "--namespace", releaseNS}, kc...)...)
	mustHelm(t, append([]string{"upgrade", release, chartDir, "--namespace", releaseNS, "--reuse-values", "--set", "crds.create=false"}, kc...)...)
	for _, crd := range crds {
		if _, err := served(crd); err != nil {
			t.Errorf("after helm upgrade --set crds.create=false, CRD %s: %v (crds.keep is on)", crd.GetName(), err)
		}
	}
	mustHelm(t, append([]string{"upgrade", release, chartDir, "--namespace", releaseNS, "--reuse-values", "--set", "crds.create=true"}, kc...)...)
	// crds.keep=false: the policy goes, and helm uninstall deletes them.
	mustHelm(t, append([]string{"upgrade", release, chartDir, "--namespace", releaseNS, "--reuse-values", "--set", "crds.keep=false"}, kc...)...)
	for _, crd := range crds {
		if got, err := served(crd); err != nil || got.GetAnnotations()[keepPolicy] != "" {
			t.Errorf("upgraded with crds.keep=false, CRD %s: %v, annotations %v", crd.GetName(), err, got.GetAnnotations())
		}
	}
	mustHelm(t, append([]string{"uninstall", release, "--namespace", releaseNS, "--wait", "--timeout", "60s"}, kc...)...)
	for _, crd := range crds {
		if _, err := served(crd); !apierrors.IsNotFound(err) {
			t.Errorf("after helm uninstall with crds.keep=false, CRD %s: %v, want not found", crd.GetName(), err)
		}
	}
	t.Logf("upgrade from chart %s and the CRDs' life: %s", version, time.Since(start).Round(time.Millisecond))
}

// specHasField says whether a served SearchCampaign CRD's first version
// has the spec field.
func specHasField(crd *unstructured.Unstructured, field string) bool {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(versions) == 0 {
		return false
	}
	_, ok, _ := unstructured.NestedMap(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties", field)
	return ok
}

// serveCampaign creates research/<name> with spec.upgradeField set, once
// a dry run shows the API server keeps the field (keeps) or prunes it: the
// server swaps a CRD's handler moments after the CRD changes, and serves a
// new CRD's kind only once it is established.
func serveCampaign(t *testing.T, c *cluster, name string, keeps bool) {
	t.Helper()
	obj := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "blastfleet.io/v1alpha1",
			"kind":       "SearchCampaign",
			"metadata":   map[string]any{"name": name, "namespace": "research"},
			"spec": map[string]any{
				"program":     "blastp",
				"databaseRef": map[string]any{"name": "proteins"},
				"queries":     map[string]any{"key": "queries.fa"},
				"output":      map[string]any{"bucket": "results"},
				upgradeField:  int64(3600),
			},
		}}
	}
	kept := func(u *unstructured.Unstructured) bool {
		_, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", upgradeField)
		return ok
	}
	ctx := context.Background()
	last := "no answer"
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		u := obj()
		if err := c.client.Create(ctx, u, client.DryRunAll); err != nil {
			if ctx.Err() == nil {
				last = err.Error()
			}
			return false, nil
		}
		last = fmt.Sprintf("a dry run kept spec.%s: %v", upgradeField, kept(u))
		return kept(u) == keeps, nil
	})
	if err != nil {
		t.Fatalf("the API server never created a SearchCampaign that %s spec.%s (last: %s): %v",
			map[bool]string{true: "keeps", false: "prunes"}[keeps], upgradeField, last, err)
	}
	u := obj()
	if err := c.client.Create(ctx, u); err != nil {
		t.Fatalf("creating campaign research/%s: %v", name, err)
	}
	if kept(u) != keeps {
		t.Errorf("campaign research/%s: spec.%s kept %v after a dry run kept it %v", name, upgradeField, kept(u), keeps)
	}
}

// previousChart extracts from git, into a temporary directory, the chart
// as it was last at the version before the current one: the parent of the
// commit that set Chart.yaml's current version (HEAD while that change is
// not committed). It says which version that is.
func previousChart(t testing.TB) (dir, version string) {
	t.Helper()
	current := readChart(t, rootPath(t, chartDir)).Version
	commits := strings.Fields(git(t, "log", "--format=%H", "--", chartDir+"/Chart.yaml"))
	rev := ""
	for i, c := range commits {
		var meta chartMeta
		if err := yaml.Unmarshal([]byte(git(t, "show", c+":"+chartDir+"/Chart.yaml")), &meta); err != nil {
			t.Fatalf("%s:%s/Chart.yaml: %v", c, chartDir, err)
		}
		if meta.Version == current {
			continue
		}
		rev, version = "HEAD", meta.Version
		if i > 0 {
			rev = commits[i-1] + "^"
		}
		break
	}
	if rev == "" {
		skipOrFatal(t, "git history (%d commits of %s/Chart.yaml) holds no chart version before %s: a shallow clone?", len(commits), chartDir, current)
	}
	dst := t.TempDir()
	for name, b := range tarEntries(t, strings.NewReader(git(t, "archive", "--format=tar", rev, chartDir))) {
		if strings.HasSuffix(name, "/") {
			continue // a directory
		}
		target := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("previous chart: version %s, from git %s", version, rev)
	return filepath.Join(dst, chartDir), version
}

// git runs git in the repository and returns stdout.
func git(t testing.TB, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		skipOrFatal(t, "git is not installed: %v", err)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = root(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// dropSpecField deletes a spec field from the chart's CRD file, in crds/
// or templates/crds/ (where controller-gen's text is kept as it is): the
// lines of "spec.properties.<field>" in the schema, found by controller-
// gen's indentation.
func dropSpecField(t testing.TB, chart, file, field string) {
	t.Helper()
	path := filepath.Join(chart, "crds", file)
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(chart, "templates/crds", file)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the previous chart has no %s in crds/ or templates/crds/: %v", file, err)
	}
	const specIndent, fieldIndent = 10, 14 // openAPIV3Schema.properties.spec, its properties
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	var out []string
	inSpec, skipping, dropped := false, false, false
	for _, l := range strings.Split(string(b), "\n") {
		blank := strings.TrimSpace(l) == ""
		if skipping && (blank || indent(l) > fieldIndent) {
			continue
		}
		skipping = false
		switch {
		case l == strings.Repeat(" ", specIndent)+"spec:":
			inSpec = true
		case inSpec && !blank && indent(l) <= specIndent:
			inSpec = false
		case inSpec && l == strings.Repeat(" ", fieldIndent)+field+":":
			skipping, dropped = true, true
			continue
		}
		out = append(out, l)
	}
	if !dropped {
		t.Fatalf("%s has no spec.%s at controller-gen's indentation", path, field)
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
