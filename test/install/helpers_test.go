// Package install tests how blastfleet is installed: the Helm charts
// (charts/), the kustomize tree (config/), and the Dockerfiles. The charts
// are rendered and linted with a real helm binary (hack/install-helm.sh
// builds it from its Go module) and installed against a real
// kube-apiserver (envtest); kustomize is the one built into kubectl.
package install

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// Paths of what is tested, relative to the repository root.
const (
	chartDir      = "charts/blastfleet"
	mpiChartDir   = "charts/mpi-operator"
	stackChartDir = "charts/blastfleet-stack"
	generatedRole = "config/rbac/role.yaml"
	crdBases      = "config/crd/bases"
	chartCRDs     = chartDir + "/templates/crds" // make chart-crds
)

// root is the repository root.
func root(t testing.TB) string {
	t.Helper()
	r, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func rootPath(t testing.TB, rel string) string { return filepath.Join(root(t), rel) }

// skipOrFatal skips, or fails under BLASTFLEET_REQUIRE_REAL=1 (make test).
func skipOrFatal(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if testenv.RequireReal() {
		t.Fatalf("%s (BLASTFLEET_REQUIRE_REAL=1 forbids skipping)", msg)
	}
	t.Skip(msg)
}

var helmOnce struct {
	sync.Once
	path string
	err  error
}

// helmBinary is $BLASTFLEET_HELM, else what hack/install-helm.sh builds
// (once per machine) and prints. PATH is not consulted: the tests run the
// pinned version.
func helmBinary(t testing.TB) string {
	t.Helper()
	helmOnce.Do(func() {
		if p := os.Getenv("BLASTFLEET_HELM"); p != "" {
			if _, err := os.Stat(p); err != nil {
				helmOnce.err = fmt.Errorf("BLASTFLEET_HELM=%s: %w", p, err)
			}
			helmOnce.path = p
			return
		}
		r, err := testenv.RepoRoot()
		if err != nil {
			helmOnce.err = err
			return
		}
		cmd := exec.Command("bash", filepath.Join(r, "hack/install-helm.sh"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			helmOnce.err = fmt.Errorf("hack/install-helm.sh: %v: %s", err, strings.TrimSpace(stderr.String()))
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		helmOnce.path = lines[len(lines)-1]
		if _, err := os.Stat(helmOnce.path); err != nil {
			helmOnce.err = fmt.Errorf("hack/install-helm.sh printed %q: %w", helmOnce.path, err)
		}
	})
	if helmOnce.err != nil {
		skipOrFatal(t, "no helm: %v", helmOnce.err)
	}
	return helmOnce.path
}

// helmEnv keeps helm's configuration, cache and data in a temporary
// directory, so no user's repositories or plugins take part.
func helmEnv(t testing.TB) []string {
	t.Helper()
	d := t.TempDir()
	return append(os.Environ(),
		"HELM_CONFIG_HOME="+filepath.Join(d, "config"),
		"HELM_CACHE_HOME="+filepath.Join(d, "cache"),
		"HELM_DATA_HOME="+filepath.Join(d, "data"),
	)
}

// helm runs helm and returns stdout; stderr joins the error.
func helm(t testing.TB, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helmBinary(t), args...)
	cmd.Dir = root(t)
	cmd.Env = helmEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

func mustHelm(t testing.TB, args ...string) string {
	t.Helper()
	out, err := helm(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// kubectl runs kubectl (on the machines; its kustomize is built in).
func kubectl(t testing.TB, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		skipOrFatal(t, "kubectl is not installed: %v", err)
	}
	if kubeconfig != "" {
		args = append([]string{"--kubeconfig", kubeconfig}, args...)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = root(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// tarEntries reads a tar stream whole: each entry's content by its name.
func tarEntries(t testing.TB, r io.Reader) map[string][]byte {
	t.Helper()
	entries := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries[h.Name] = b
	}
}

// objects parses a multi-document YAML stream; empty documents are dropped.
func objects(t testing.TB, manifest string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading YAML: %v", err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Fatalf("parsing YAML document: %v\n%s", err, doc)
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
	return out
}

func objectsFromFile(t testing.TB, path string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return objects(t, string(b))
}

// find returns the one object of kind (and name, unless empty).
func find(t testing.TB, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	var hits []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind && (name == "" || o.GetName() == name) {
			hits = append(hits, o)
		}
	}
	if len(hits) != 1 {
		t.Fatalf("want one %s %q, found %d (objects: %s)", kind, name, len(hits), describe(objs))
	}
	return hits[0]
}

func ofKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

func describe(objs []*unstructured.Unstructured) string {
	var s []string
	for _, o := range objs {
		s = append(s, o.GetKind()+"/"+o.GetName())
	}
	return strings.Join(s, ", ")
}

func kinds(objs []*unstructured.Unstructured) []string {
	set := map[string]bool{}
	for _, o := range objs {
		set[o.GetKind()] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// into converts an unstructured object (or part of one) to a typed value.
func into(t testing.TB, from any, to any) {
	t.Helper()
	b, err := yaml.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, to); err != nil {
		t.Fatalf("converting to %T: %v", to, err)
	}
}

// permission is one thing a PolicyRule allows.
type permission struct{ group, resource, verb, url string }

// permissions expands rules into the set of (group, resource, verb) and
// (non-resource URL, verb) they allow, so rule sets written differently
// but granting the same compare equal.
func permissions(rules []rbacv1.PolicyRule) []permission {
	set := map[permission]bool{}
	for _, r := range rules {
		for _, v := range r.Verbs {
			for _, u := range r.NonResourceURLs {
				set[permission{url: u, verb: v}] = true
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					set[permission{group: g, resource: res, verb: v}] = true
				}
			}
		}
	}
	out := make([]permission, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b permission) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
	return out
}

func rulesOf(t testing.TB, o *unstructured.Unstructured) []rbacv1.PolicyRule {
	t.Helper()
	var rules []rbacv1.PolicyRule
	into(t, o.Object["rules"], &rules)
	return rules
}

// diffPermissions says what a has that b lacks and the reverse.
func diffPermissions(a, b []permission) string {
	var extra, missing []string
	for _, p := range a {
		if !slices.Contains(b, p) {
			extra = append(extra, fmt.Sprintf("%+v", p))
		}
	}
	for _, p := range b {
		if !slices.Contains(a, p) {
			missing = append(missing, fmt.Sprintf("%+v", p))
		}
	}
	return fmt.Sprintf("extra: %v; missing: %v", extra, missing)
}

// generatedRules are the rules controller-gen wrote from the operator's
// +kubebuilder:rbac markers.
func generatedRules(t testing.TB) []rbacv1.PolicyRule {
	t.Helper()
	return rulesOf(t, find(t, objectsFromFile(t, rootPath(t, generatedRole)), "ClusterRole", ""))
}

func deepEqual(a, b any) bool {
	return reflect.DeepEqual(normalize(a), normalize(b))
}

// normalize round-trips through JSON so numbers and nil slices compare
// alike in values from different parsers.
func normalize(v any) any {
	b, err := yaml.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := yaml.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}
