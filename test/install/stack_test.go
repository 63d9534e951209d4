package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/test/support/kubetest"
)

// mpiOperatorModule is the MPI operator's module directory at the version
// go.mod requires, and that version.
func mpiOperatorModule(t testing.TB) (dir, version string) {
	t.Helper()
	crd, err := kubetest.MPIJobCRD() // downloads the module when missing
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", kubetest.MPIOperatorModule)
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", kubetest.MPIOperatorModule, err)
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(crd))), strings.TrimSpace(string(out))
}

type chartMeta struct {
	Name         string `json:"name"`
	Version      string `json:"version"`
	AppVersion   string `json:"appVersion"`
	Dependencies []struct {
		Name       string `json:"name"`
		Version    string `json:"version"`
		Repository string `json:"repository"`
		Condition  string `json:"condition"`
	} `json:"dependencies"`
}

func readChart(t testing.TB, dir string) chartMeta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c chartMeta
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s/Chart.yaml: %v", dir, err)
	}
	return c
}

// charts/mpi-operator packages the MPI operator go.mod requires: its CRD,
// its RBAC rules and its image, unchanged.
func TestMPIOperatorChartMatchesModule(t *testing.T) {
	mod, version := mpiOperatorModule(t)
	meta := readChart(t, rootPath(t, mpiChartDir))
	if "v"+meta.AppVersion != version || "v"+meta.Version != version {
		t.Errorf("%s is version %s (app %s); go.mod requires %s %s", mpiChartDir, meta.Version, meta.AppVersion, kubetest.MPIOperatorModule, version)
	}

	want, _ := os.ReadFile(filepath.Join(mod, "manifests/base/kubeflow.org_mpijobs.yaml"))
	got, err := os.ReadFile(rootPath(t, mpiChartDir+"/crds/kubeflow.org_mpijobs.yaml"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s/crds/kubeflow.org_mpijobs.yaml differs from the module's manifests/base copy (%v)", mpiChartDir, err)
	}

	objs := render(t, mpiChartDir)
	upstream := objectsFromFile(t, filepath.Join(mod, "manifests/base/cluster-role.yaml"))
	for _, u := range upstream {
		c := find(t, objs, "ClusterRole", u.GetName())
		if got, want := permissions(rulesOf(t, c)), permissions(rulesOf(t, u)); !slices.Equal(got, want) {
			t.Errorf("ClusterRole %s: %s", u.GetName(), diffPermissions(got, want))
		}
		if !deepEqual(c.Object["aggregationRule"], u.Object["aggregationRule"]) {
			t.Errorf("ClusterRole %s: aggregationRule %v, upstream %v", u.GetName(), c.Object["aggregationRule"], u.Object["aggregationRule"])
		}
	}
	var d appsv1.Deployment
	into(t, find(t, objs, "Deployment", "mpi-operator").Object, &d)
	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != "mpioperator/mpi-operator:"+strings.TrimPrefix(version, "v") {
		t.Errorf("MPI operator image %s, want the go.mod version %s", c.Image, version)
	}
	if !slices.Contains(c.Args, "--lock-namespace="+releaseNS) {
		t.Errorf("MPI operator args %v lack --lock-namespace=<release namespace> (the standalone overlay's)", c.Args)
	}
}

// charts/blastfleet-stack declares the optional dependencies, off by
// default. Its MinIO dependency needs the network (helm dependency build);
// the rest is checked offline on a copy without it.
func TestStackChart(t *testing.T) {
	stack := readChart(t, rootPath(t, stackChartDir))
	blastfleet := readChart(t, rootPath(t, chartDir))
	mpi := readChart(t, rootPath(t, mpiChartDir))
	var values map[string]any
	b, err := os.ReadFile(rootPath(t, stackChartDir+"/values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &values); err != nil {
		t.Fatal(err)
	}
	deps := map[string]bool{}
	for _, d := range stack.Dependencies {
		deps[d.Name] = true
		switch d.Name {
		case "blastfleet":
			if d.Repository != "file://../blastfleet" || d.Version != blastfleet.Version || d.Condition != "" {
				t.Errorf("blastfleet dependency %+v, want file://../blastfleet at %s, unconditional", d, blastfleet.Version)
			}
		case "mpi-operator":
			if d.Repository != "file://../mpi-operator" || d.Version != mpi.Version {
				t.Errorf("mpi-operator dependency %+v, want file://../mpi-operator at %s", d, mpi.Version)
			}
		case "minio":
			if !strings.HasPrefix(d.Repository, "https://") || strings.ContainsAny(d.Version, "^~*x<> ") {
				t.Errorf("minio dependency %+v: want an https repository and an exact version", d)
			}
		default:
			t.Errorf("unexpected dependency %s", d.Name)
		}
		if d.Name != "blastfleet" {
			if d.Condition != d.Name+".enabled" {
				t.Errorf("dependency %s has condition %q, want %s.enabled", d.Name, d.Condition, d.Name)
			}
			v, _ := values[d.Name].(map[string]any)
			if enabled, ok := v["enabled"].(bool); !ok || enabled {
				t.Errorf("values.yaml: %s.enabled is %v, want false (off by default)", d.Name, v["enabled"])
			}
		}
	}
	for _, n := range []string{"blastfleet", "mpi-operator", "minio"} {
		if !deps[n] {
			t.Errorf("%s does not depend on %s", stackChartDir, n)
		}
	}

	// Offline: a copy of charts/ whose stack leaves MinIO out.
	tmp := t.TempDir()
	for _, c := range []string{chartDir, mpiChartDir, stackChartDir} {
		if err := os.Rename(copyDir(t, rootPath(t, c)), filepath.Join(tmp, filepath.Base(c))); err != nil {
			t.Fatal(err)
		}
	}
	stackDir := filepath.Join(tmp, filepath.Base(stackChartDir))
	chartYAML, _ := os.ReadFile(filepath.Join(stackDir, "Chart.yaml"))
	i := bytes.Index(chartYAML, []byte("# MinIO"))
	if i < 0 {
		t.Fatalf("%s/Chart.yaml: no \"# MinIO\" comment before the minio dependency", stackChartDir)
	}
	if err := os.WriteFile(filepath.Join(stackDir, "Chart.yaml"), chartYAML[:i], 0o644); err != nil {
		t.Fatal(err)
	}
	mustHelm(t, "dependency", "build", stackDir)
	if out := mustHelm(t, "lint", "--strict", stackDir); strings.Contains(out, "[WARNING]") || strings.Contains(out, "[ERROR]") {
		t.Errorf("helm lint %s:\n%s", stackChartDir, out)
	}
	off := render(t, stackDir)
	if len(ofKind(off, "Deployment")) != 1 {
		t.Errorf("stack defaults render %s; want only blastfleet's Deployment", describe(ofKind(off, "Deployment")))
	}
	on := render(t, stackDir, "--set", "mpi-operator.enabled=true", "--set", "blastfleet.replicaCount=2")
	find(t, on, "Deployment", "mpi-operator")
	if r, _, _ := unstructuredInt(find(t, on, "Deployment", release).Object, "spec", "replicas"); r != 2 {
		t.Errorf("blastfleet.replicaCount=2 does not reach the blastfleet chart (replicas %d)", r)
	}
}

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	var v any = obj
	for _, f := range fields {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		v = m[f]
	}
	switch n := v.(type) {
	case int64:
		return n, true, nil
	case float64:
		return int64(n), true, nil
	}
	return 0, false, nil
}
