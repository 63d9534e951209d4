package localrunner

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	if testing.Verbose() {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// startAPIServer is a real kube-apiserver with the MPIJob CRD.
func startAPIServer(t *testing.T) *kubetest.Env {
	t.Helper()
	testenv.RequireTools(t, "mpirun")
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(testWriter{t})))
	return kubetest.Start(t)
}

// namespace creates a namespace for one subtest, which its own runner
// watches alone.
func namespace(t *testing.T, env *testEnv, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return name
}

// startRunner starts a runner on ns, stopped when the test ends.
func startRunner(t *testing.T, env *testEnv, ns string, opts ...func(*Options)) *Runner {
	t.Helper()
	o := Options{
		WorkDir: t.TempDir(), Namespace: ns,
		KillGrace: time.Second, RetryBackoff: 50 * time.Millisecond, MaxRetryBackoff: 200 * time.Millisecond,
	}
	for _, f := range opts {
		f(&o)
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(env.Config); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

// mpiJob is a minimal MPIJob whose launcher runs mpirun with args.
func mpiJob(ns, name string, args ...string) *kubeflow.MPIJob {
	return &kubeflow.MPIJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: kubeflow.MPIJobSpec{
			SlotsPerWorker: ptr.To[int32](1),
			RunPolicy:      kubeflow.RunPolicy{BackoffLimit: ptr.To[int32](0), CleanPodPolicy: ptr.To(kubeflow.CleanPodPolicyRunning)},
			MPIReplicaSpecs: map[kubeflow.MPIReplicaType]*kubeflow.ReplicaSpec{
				kubeflow.MPIReplicaTypeLauncher: {Replicas: ptr.To[int32](1), RestartPolicy: kubeflow.RestartPolicyNever, Template: corev1.PodTemplateSpec{
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "launcher", Image: "worker:test", Command: []string{"mpirun"}, Args: args}}},
				}},
				kubeflow.MPIReplicaTypeWorker: {Replicas: ptr.To[int32](2), RestartPolicy: kubeflow.RestartPolicyNever, Template: corev1.PodTemplateSpec{
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "worker", Image: "worker:test"}}},
				}},
			},
		},
	}
}

// eventually polls cond until it holds.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	testenv.Eventually(t, what, timeout, 50*time.Millisecond, cond)
}

func get(t *testing.T, c client.Client, obj client.Object) string {
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		return err.Error()
	}
	return ""
}

// tree is a process and everything below it, with start times.
func tree(pid int) []testenv.Proc {
	start, ok := testenv.ProcStart(pid)
	if !ok {
		return nil
	}
	return append([]testenv.Proc{{PID: pid, Start: start}}, testenv.Descendants(pid)...)
}

// alive lists the processes of procs still alive (zombies are dead).
func alive(procs []testenv.Proc) []int {
	var out []int
	for _, p := range procs {
		if _, state, start, ok := testenv.ProcStat(p.PID); ok && start == p.Start && state != "Z" && state != "X" {
			out = append(out, p.PID)
		}
	}
	return out
}

// launcherPID waits for the runner's launcher of name and returns its pid.
func launcherPID(t *testing.T, r *Runner, ns, name string) int {
	t.Helper()
	pid := 0
	eventually(t, "launcher process of "+name, 10*time.Second, func() (bool, string) {
		for _, p := range r.Processes() {
			if p.Kind == "MPIJob" && p.Namespace == ns && p.Name == name {
				pid = p.PID
				return true, ""
			}
		}
		return false, "no process"
	})
	return pid
}

func mpiCond(job *kubeflow.MPIJob, t kubeflow.JobConditionType) *kubeflow.JobCondition {
	return mpiCondition(&job.Status, t)
}

func conditionsString(job *kubeflow.MPIJob) string {
	var parts []string
	for _, c := range job.Status.Conditions {
		parts = append(parts, string(c.Type)+"="+string(c.Status)+"/"+c.Reason)
	}
	return strings.Join(parts, ",")
}

// testEnv is the shared API server.
type testEnv struct{ *kubetest.Env }

func itoa(i int) string { return strconv.Itoa(i) }

func ints(is []int) string {
	s := make([]string, len(is))
	for i, v := range is {
		s[i] = itoa(v)
	}
	return strings.Join(s, ",")
}

func procStatT(pid int) (int, string, string, bool) { return testenv.ProcStat(pid) }

func startTimes(pids []int) map[int]string {
	m := map[int]string{}
	for _, pid := range pids {
		m[pid], _ = testenv.ProcStart(pid)
	}
	return m
}
