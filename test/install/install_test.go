package install

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/blastfleet/blastfleet/test/support/kubetest"
)

// The Prometheus Operator's CRDs for ServiceMonitor, PodMonitor and
// PrometheusRule come from its Go module at this version (about 4 MB,
// fetched once into the module cache), so the chart's monitoring objects
// are validated by the API server too.
const (
	prometheusOperatorModule  = "github.com/prometheus-operator/prometheus-operator"
	prometheusOperatorVersion = "v0.85.0"
)

var prometheusOperatorCRDs = []string{
	"monitoring.coreos.com_servicemonitors.yaml",
	"monitoring.coreos.com_podmonitors.yaml",
	"monitoring.coreos.com_prometheusrules.yaml",
}

func prometheusCRDPaths(t testing.TB) []string {
	t.Helper()
	// Outside our module: go.mod and go.sum stay untouched.
	cmd := exec.Command("go", "mod", "download", "-json", prometheusOperatorModule+"@"+prometheusOperatorVersion)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		skipOrFatal(t, "go mod download %s@%s: %v", prometheusOperatorModule, prometheusOperatorVersion, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", prometheusOperatorModule, err, info.Error)
	}
	var paths []string
	for _, f := range prometheusOperatorCRDs {
		paths = append(paths, filepath.Join(info.Dir, "example/prometheus-operator-crd", f))
	}
	return paths
}

// cluster is a real kube-apiserver and etcd (envtest) with the MPIJob,
// Argo Workflows and Prometheus Operator CRDs but not ours: the chart
// installs those.
type cluster struct {
	client     client.Client
	cfg        *rest.Config
	kubeconfig string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	assets, err := kubetest.Assets()
	if err != nil {
		skipOrFatal(t, "%v", err)
	}
	mpi, err := kubetest.MPIJobCRD()
	if err != nil {
		t.Fatal(err)
	}
	// Argo's, for the chart's WorkflowTemplate (argo.databaseTemplate).
	argo, err := kubetest.ArgoCRDs()
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     append(append([]string{mpi}, argo...), prometheusCRDPaths(t)...),
		ErrorIfCRDPathMissing: true,
		Scheme:                kubetest.Scheme(),
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting kube-apiserver and etcd from %s: %v", assets, err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	// helm and kubectl connect as a cluster admin of their own.
	user, err := env.AddUser(envtest.User{Name: "blastfleet-installer", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	return &cluster{client: c, cfg: cfg, kubeconfig: path}
}

func (c *cluster) get(t testing.TB, o *unstructured.Unstructured) error {
	t.Helper()
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(o.GroupVersionKind())
	return c.client.Get(context.Background(), client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetName()}, got)
}

// TestInstall installs the chart with every optional feature against a
// real API server (which validates every object), checks what it grants,
// uninstalls it, then applies config/default the same way.
func TestInstall(t *testing.T) {
	start := time.Now()
	c := startCluster(t)
	t.Logf("API server up in %s", time.Since(start).Round(time.Millisecond))
	ctx := context.Background()

	// The release namespace enforces the "restricted" Pod Security
	// Standard, as config/default's Namespace does.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: releaseNS, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted",
	}}}
	if err := c.client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}

	t.Run("helm", func(t *testing.T) {
		defer func(s time.Time) {
			t.Logf("helm install, checks and uninstall: %s", time.Since(s).Round(time.Millisecond))
		}(time.Now())
		args := append([]string{"install", release, chartDir, "--namespace", releaseNS, "--kubeconfig", c.kubeconfig}, everyOptionalFeature...)
		out := mustHelm(t, args...)
		checkNotes(t, out)

		// Every object the chart renders was created.
		manifest := objects(t, mustHelm(t, "get", "manifest", release, "--namespace", releaseNS, "--kubeconfig", c.kubeconfig))
		want := render(t, chartDir, everyOptionalFeature...)
		if a, b := names(manifest), names(want); !slices.Equal(a, b) {
			t.Errorf("the release holds %v; helm template renders %v", a, b)
		}
		for _, o := range manifest {
			if o.GetNamespace() == "" && isNamespaced(o.GetKind()) {
				o.SetNamespace(releaseNS)
			}
			if err := c.get(t, o); err != nil {
				t.Errorf("%s/%s was not created: %v", o.GetKind(), o.GetName(), err)
			}
		}
		if n := len(ofKind(manifest, "CustomResourceDefinition")); n != len(configCRDs(t)) {
			t.Errorf("the release holds %d CRDs, %s %d", n, crdBases, len(configCRDs(t)))
		}
		checkRestrictedPod(t, c, find(t, manifest, "Deployment", release))
		checkGrants(t, c, "system:serviceaccount:"+releaseNS+":"+find(t, manifest, "ServiceAccount", "").GetName())
		checkUserRoles(t, c, release)

		mustHelm(t, "uninstall", release, "--namespace", releaseNS, "--kubeconfig", c.kubeconfig, "--wait", "--timeout", "60s")
		for _, o := range manifest {
			err := c.get(t, o)
			switch {
			case o.GetKind() == "CustomResourceDefinition":
				// crds.keep: the CRDs (and every campaign) stay.
				if err != nil {
					t.Errorf("after helm uninstall, CRD %s: %v (crds.keep is on)", o.GetName(), err)
				}
			case !apierrors.IsNotFound(err):
				t.Errorf("after helm uninstall, %s/%s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	})

	// The packaged MPI operator (charts/mpi-operator) installs too; its CRD
	// is already there (the same file), which helm leaves alone.
	t.Run("mpi-operator", func(t *testing.T) {
		mustHelm(t, "install", "mpi-operator", mpiChartDir, "--namespace", "mpi-operator", "--create-namespace", "--kubeconfig", c.kubeconfig)
		manifest := objects(t, mustHelm(t, "get", "manifest", "mpi-operator", "--namespace", "mpi-operator", "--kubeconfig", c.kubeconfig))
		if len(manifest) == 0 {
			t.Fatal("empty release")
		}
		for _, o := range manifest {
			if o.GetNamespace() == "" && isNamespaced(o.GetKind()) {
				o.SetNamespace("mpi-operator")
			}
			if err := c.get(t, o); err != nil {
				t.Errorf("%s/%s was not created: %v", o.GetKind(), o.GetName(), err)
			}
		}
		mustHelm(t, "uninstall", "mpi-operator", "--namespace", "mpi-operator", "--kubeconfig", c.kubeconfig, "--wait", "--timeout", "60s")
	})

	t.Run("kustomize", func(t *testing.T) {
		defer func(s time.Time) { t.Logf("kubectl apply -k and checks: %s", time.Since(s).Round(time.Millisecond)) }(time.Now())
		for _, dir := range []string{"config/default", prometheusOverlay(t)} {
			if _, err := kubectl(t, c.kubeconfig, "apply", "--server-side", "-k", dir); err != nil {
				t.Fatal(err)
			}
		}
		rendered := append(kustomize(t, "config/default"), kustomize(t, prometheusOverlay(t))...)
		for _, o := range rendered {
			if err := c.get(t, o); err != nil {
				t.Errorf("%s/%s was not created: %v", o.GetKind(), o.GetName(), err)
			}
		}
		dep := find(t, rendered, "Deployment", "")
		checkRestrictedPod(t, c, dep)
		checkGrants(t, c, "system:serviceaccount:"+releaseNS+":"+find(t, rendered, "ServiceAccount", "").GetName())
		checkUserRoles(t, c, "blastfleet")
	})
	t.Logf("total %s", time.Since(start).Round(time.Millisecond))
}

func names(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	slices.Sort(out)
	return out
}

func isNamespaced(kind string) bool {
	return !slices.Contains([]string{"ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "Namespace"}, kind)
}

// checkRestrictedPod creates (dry run: admission runs, nothing is stored)
// a pod from the Deployment's template in the release namespace, which
// enforces the restricted Pod Security Standard; a privileged pod must be
// refused there, so the check cannot pass because admission is off.
func checkRestrictedPod(t *testing.T, c *cluster, deployment *unstructured.Unstructured) {
	t.Helper()
	var d appsv1.Deployment
	into(t, deployment.Object, &d)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "pss-check-", Namespace: releaseNS},
		Spec:       d.Spec.Template.Spec,
	}
	if err := c.client.Create(context.Background(), pod, client.DryRunAll); err != nil {
		t.Errorf("the operator's pod is refused in a namespace enforcing the restricted Pod Security Standard: %v", err)
	}
	bad := pod.DeepCopy()
	bad.Spec.Containers[0].SecurityContext.Privileged = ptr.To(true)
	bad.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
	err := c.client.Create(context.Background(), bad, client.DryRunAll)
	if err == nil || !strings.Contains(err.Error(), "violates PodSecurity") {
		t.Errorf("a privileged pod was not refused by PodSecurity admission (%v): the check above proves nothing", err)
	}
}

// checkGrants asks the API server's RBAC authorizer what the operator's
// ServiceAccount may do: what the operator needs, and nothing around it.
func checkGrants(t *testing.T, c *cluster, user string) {
	t.Helper()
	type access struct {
		verb, group, resource, subresource, namespace string
	}
	allowed := []access{
		{"get", "", "secrets", "", "research"},
		// Argo's executor token Secret, so no Workflow pod mounts the
		// token of the account a campaign names (controllers/executor/argo/rbac.go).
		{"create", "", "secrets", "", "research"},
		{"get", "", "configmaps", "", "research"}, // a store's caBundle, read uncached
		{"get", "", "pods", "", "research"},
		{"watch", "", "pods", "", ""},
		{"create", "kubeflow.org", "mpijobs", "", "research"},
		{"delete", "kubeflow.org", "mpijobs", "", "research"},
		{"list", "batch", "jobs", "", ""},
		{"create", "batch", "jobs", "", "research"},
		{"watch", "blastfleet.io", "searchcampaigns", "", ""},
		{"patch", "blastfleet.io", "searchcampaigns", "status", "research"},
		{"update", "blastfleet.io", "blastdatabases", "status", "research"},
		{"create", "events.k8s.io", "events", "", "research"},
		{"create", "coordination.k8s.io", "leases", "", releaseNS},
		{"update", "coordination.k8s.io", "leases", "", releaseNS},
		{"create", "", "events", "", releaseNS},
		{"create", "authentication.k8s.io", "tokenreviews", "", ""},
		{"create", "authorization.k8s.io", "subjectaccessreviews", "", ""},
	}
	denied := []access{
		{"list", "", "secrets", "", "research"},
		{"watch", "", "secrets", "", "research"},
		{"update", "", "secrets", "", "research"},
		{"create", "", "pods", "", "research"},
		{"delete", "", "pods", "", "research"},
		{"list", "", "configmaps", "", "research"},
		{"watch", "", "configmaps", "", "research"},
		{"update", "", "configmaps", "", "research"},
		{"update", "kubeflow.org", "mpijobs", "", "research"},
		{"patch", "kubeflow.org", "mpijobs", "", "research"},
		{"update", "batch", "jobs", "", "research"},
		{"update", "blastfleet.io", "searchcampaigns", "", "research"},
		{"delete", "blastfleet.io", "searchcampaigns", "", "research"},
		{"create", "blastfleet.io", "blastdatabases", "", "research"},
		{"create", "coordination.k8s.io", "leases", "", "research"},
		{"create", "", "events", "", "research"},
		{"create", "apiextensions.k8s.io", "customresourcedefinitions", "", ""},
		{"create", "rbac.authorization.k8s.io", "clusterrolebindings", "", ""},
	}
	check := func(a access, want bool) {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace,
			},
		}}
		if err := c.client.Create(context.Background(), sar); err != nil {
			t.Fatalf("SubjectAccessReview: %v", err)
		}
		if sar.Status.Allowed != want {
			t.Errorf("%s may %s %s: %v, want %v", user, a.verb, schemaString(a.group, a.resource, a.subresource, a.namespace), sar.Status.Allowed, want)
		}
	}
	for _, a := range allowed {
		check(a, true)
	}
	for _, a := range denied {
		check(a, false)
	}
}

func schemaString(group, resource, sub, ns string) string {
	s := schema.GroupResource{Group: group, Resource: resource}.String()
	if sub != "" {
		s += "/" + sub
	}
	if ns != "" {
		s += fmt.Sprintf(" in %s", ns)
	}
	return s
}
