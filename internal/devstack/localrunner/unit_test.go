package localrunner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "1", "IDX": "7"}
	for in, want := range map[string]string{
		"--shard-index=$(IDX)": "--shard-index=7",
		"$(A)$(A)":             "11",
		"$$(A)":                "$(A)",
		"$(MISSING)":           "$(MISSING)",
		"$(A":                  "$(A",
		"cost $5 $":            "cost $5 $",
		"plain":                "plain",
	} {
		if got := expand(in, vars); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRewritePaths(t *testing.T) {
	ms := []mount{{Path: "/scratch", Local: "/tmp/s"}, {Path: "/scratch/shards", Local: "/tmp/sh"}}
	for in, want := range map[string]string{
		"/scratch":                   "/tmp/s",
		"--cache-dir=/scratch/x":     "--cache-dir=/tmp/s/x",
		"/scratch/shards/a":          "/tmp/sh/a",
		"cp /scratch/f '/scratch/g'": "cp /tmp/s/f '/tmp/s/g'",
		"/data/scratch":              "/data/scratch",
		"/scratchpad":                "/scratchpad",
		"s3://b/scratch":             "s3://b/scratch",
	} {
		if got := rewritePaths(in, ms); got != want {
			t.Errorf("rewritePaths(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEmptyDirMounts(t *testing.T) {
	spec := &corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
		{Name: "keys", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}},
	}}
	c := &corev1.Container{VolumeMounts: []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch/"}, {Name: "cfg", MountPath: "/etc/cfg"}, {Name: "keys", MountPath: "/etc/keys"}}}
	ms, skipped := emptyDirMounts("/base", spec, c)
	if len(ms) != 2 || ms[0].Path != "/scratch" || ms[0].Local != "/base/scratch" || ms[1].Path != "/etc/cfg" || ms[1].Local != "/base/cfg" ||
		len(skipped) != 1 || skipped[0] != "keys" {
		t.Fatalf("mounts %+v skipped %v", ms, skipped)
	}
}

func TestIndexes(t *testing.T) {
	set := map[int]bool{0: true, 1: true, 2: true, 4: true, 6: true, 7: true}
	s := formatIndexes(set)
	if s != "0-2,4,6-7" {
		t.Fatalf("formatIndexes = %q", s)
	}
	back, err := parseIndexes(s, 7)
	if err != nil || len(back) != 5 || back[7] {
		t.Fatalf("parseIndexes(%q, 7) = %v, %v", s, back, err)
	}
	if formatIndexes(nil) != "" {
		t.Fatal("empty set")
	}
}

func TestLogTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString(strings.Repeat("x", 10) + "\n")
	}
	b.WriteString("last\n")
	if err := os.WriteFile(p, []byte("earlier attempt\n"+b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := logTail(p, 16, 3, 4096)
	if got != strings.Repeat("x", 10)+"\n"+strings.Repeat("x", 10)+"\nlast" {
		t.Fatalf("tail %q", got)
	}
	if got := logTail(p, 0, 1000, 30); strings.Contains(got, "earlier") || !strings.HasSuffix(got, "last") {
		t.Fatalf("bounded tail %q", got)
	}
}

func TestOversubscribe(t *testing.T) {
	got := withOversubscribe([]string{"-np", "4", "prog"})
	if strings.Join(got, " ") != "--oversubscribe -np 4 prog" {
		t.Fatal(got)
	}
	if len(withOversubscribe(got)) != len(got) {
		t.Fatal("added twice")
	}
}

// Every rank mpirun starts needs a metrics port: the launcher's -np,
// which the operator's master makes one more than the slots.
func TestLauncherRanks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"-np", "3", "--oversubscribe", "prog"}, 3},
		{[]string{"--oversubscribe", "--np=5", "prog"}, 5},
		{[]string{"-n", "7", "prog"}, 7},
		{[]string{"prog", "-np"}, 2}, // no value: a rank per slot
		{[]string{"prog"}, 2},
	} {
		job := mpiJob("ns", "j", tc.args...)
		if got := launcherRanks(job, job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher]); got != tc.want {
			t.Errorf("launcherRanks(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}

func TestPortBlocks(t *testing.T) {
	p := newPortBlocks(9000)
	a, b := p.acquire("a", 4), p.acquire("b", 2)
	if a != 9000 || b != 9004 {
		t.Fatalf("a=%d b=%d", a, b)
	}
	p.release("a")
	if c := p.acquire("c", 3); c != 9000 {
		t.Fatalf("c=%d, want the freed block", c)
	}
	if d := p.acquire("d", 2); d != 9006 {
		t.Fatalf("d=%d", d)
	}
	if start, n, ok := p.lookup("c"); !ok || start != 9000 || n != 3 {
		t.Fatalf("lookup(c) = %d, %d, %v", start, n, ok)
	}
	if _, _, ok := p.lookup("a"); ok {
		t.Fatal("lookup found a released block")
	}
}
