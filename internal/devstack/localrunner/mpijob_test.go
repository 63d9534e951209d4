package localrunner

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

func testMPIJobSucceeds(t *testing.T, env *testEnv) {
	ns := namespace(t, env, "mpi-ok")
	r := startRunner(t, env, ns, func(o *Options) { o.MetricsPortBase = 19000 })
	ctx := context.Background()

	// Record every condition set the MPIJob goes through.
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, &kubeflow.MPIJobList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	// Three ranks on two cores need --oversubscribe. The workers' /scratch
	// emptyDir is where the ranks run, so the launcher's args may name it.
	job := mpiJob(ns, "hello", "-np", "3", "/bin/sh", "-c",
		`echo "hi from $OMPI_COMM_WORLD_RANK role=$K_MPI_JOB_ROLE hostfile=${OMPI_MCA_orte_default_hostfile:-none} port=$`+MetricsPortEnv+` host=$`+enginemetrics.HostEnv+` path=${PATH%%:*}"; `+
			`touch /scratch/rank-$OMPI_COMM_WORLD_RANK && ls /scratch | wc -l | xargs echo scratch files:`)
	ws := &job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec
	ws.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
	ws.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	if err := env.Client.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	var seen []string
	deadline := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Added && ev.Type != watch.Modified {
				continue
			}
			j := ev.Object.(*kubeflow.MPIJob)
			var trueConds []string
			for _, c := range j.Status.Conditions {
				if c.Status == corev1.ConditionTrue {
					trueConds = append(trueConds, string(c.Type))
				}
			}
			if s := strings.Join(trueConds, "+"); len(seen) == 0 || seen[len(seen)-1] != s {
				seen = append(seen, s)
			}
			done = mpiFinished(&j.Status)
			*job = *j
		case <-deadline:
			t.Fatalf("no Succeeded within 20s; condition sets seen: %v", seen)
		}
	}
	want := []string{"", "Created", "Created+Running", "Created+Succeeded"}
	if !slices.Equal(seen, want) {
		t.Errorf("condition sets %v, want %v", seen, want)
	}
	if c := mpiCond(job, kubeflow.JobSucceeded); c == nil || c.Reason != mpiJobSucceededReason {
		t.Errorf("Succeeded condition %+v", c)
	}
	if c := mpiCond(job, kubeflow.JobRunning); c == nil || c.Status != corev1.ConditionFalse {
		t.Errorf("Running should be False once finished: %+v", c)
	}
	st := job.Status
	if st.StartTime == nil || st.CompletionTime == nil || st.CompletionTime.Before(st.StartTime) {
		t.Errorf("startTime %v completionTime %v", st.StartTime, st.CompletionTime)
	}
	if ls := st.ReplicaStatuses[kubeflow.MPIReplicaTypeLauncher]; ls == nil || ls.Succeeded != 1 || ls.Active != 0 {
		t.Errorf("launcher replica status %+v", ls)
	}
	if got := job.Annotations[AnnotationLauncherLog]; got != r.LauncherLog(ns, "hello") {
		t.Errorf("annotation %s = %q, want the launcher log %q", AnnotationLauncherLog, got, r.LauncherLog(ns, "hello"))
	}
	b, err := os.ReadFile(r.LauncherLog(ns, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	// The ranks' PATH starts with the runner's program links, as the
	// launcher's does: mpirun, run as "mpirun" as in a pod, adds no prefix.
	for _, s := range []string{"hi from 0", "hi from 1", "hi from 2", "role=launcher", "hostfile=none", "port=19000", "host=127.0.0.1", "scratch files: ",
		"path=" + r.bin + "\n"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("launcher log lacks %q:\n%s", s, b)
		}
	}
}

func testMPIJobFails(t *testing.T, env *testEnv) {
	ns := namespace(t, env, "mpi-fail")
	startRunner(t, env, ns)
	// Without metrics ports of its own the runner turns the operator's
	// pod port off: it would bind every interface of a shared machine.
	job := mpiJob(ns, "broken", "-np", "2", "/bin/sh", "-c", `echo "oops from rank $OMPI_COMM_WORLD_RANK port=$`+MetricsPortEnv+`" >&2; exit 4`)
	job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: MetricsPortEnv, Value: "9090"}}
	job.Spec.RunPolicy.BackoffLimit = ptr.To[int32](1) // one retry
	if err := env.Client.Create(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	eventually(t, "MPIJob Failed", 20*time.Second, func() (bool, string) {
		if e := get(t, env.Client, job); e != "" {
			return false, e
		}
		return mpiHas(&job.Status, kubeflow.JobFailed), conditionsString(job)
	})
	c := mpiCond(job, kubeflow.JobFailed)
	if c.Reason != backoffLimitExceeded || !strings.Contains(c.Message, "oops from rank") || !strings.Contains(c.Message, "port=0") || !strings.Contains(c.Message, "exited with code") {
		t.Errorf("Failed condition: reason %q message %q", c.Reason, c.Message)
	}
	if ls := job.Status.ReplicaStatuses[kubeflow.MPIReplicaTypeLauncher]; ls == nil || ls.Failed != 2 {
		t.Errorf("launcher replica status %+v, want 2 failures", ls)
	}
	if job.Status.CompletionTime == nil {
		t.Error("no completionTime")
	}
}

// sleeper is an MPIJob whose ranks run until killed.
func sleeper(ns, name string) *kubeflow.MPIJob {
	return mpiJob(ns, name, "-np", "2", "/bin/sh", "-c", "sleep 60")
}

func waitRunning(t *testing.T, env *testEnv, job *kubeflow.MPIJob) {
	t.Helper()
	eventually(t, "MPIJob Running", 15*time.Second, func() (bool, string) {
		if e := get(t, env.Client, job); e != "" {
			return false, e
		}
		return mpiHas(&job.Status, kubeflow.JobRunning), conditionsString(job)
	})
}

// runningTree waits until the launcher's ranks are up and returns the
// whole process tree.
func runningTree(t *testing.T, r *Runner, ns, name string) []int {
	t.Helper()
	pid := launcherPID(t, r, ns, name)
	var procs []int
	eventually(t, "ranks started", 10*time.Second, func() (bool, string) {
		tr := tree(pid)
		n := 0
		for _, p := range tr {
			if b, _ := os.ReadFile("/proc/" + itoa(p.PID) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
				n++
			}
		}
		procs = alive(tr)
		return n == 2, itoa(n) + " sleeps"
	})
	return procs
}

func waitGone(t *testing.T, pids []int, start map[int]string) {
	t.Helper()
	eventually(t, "process tree gone", 10*time.Second, func() (bool, string) {
		var left []int
		for _, pid := range pids {
			if _, state, s, ok := procStatT(pid); ok && s == start[pid] && state != "Z" {
				left = append(left, pid)
			}
		}
		return len(left) == 0, "alive: " + ints(left)
	})
}

func testMPIJobDeleted(t *testing.T, env *testEnv) {
	ns := namespace(t, env, "mpi-delete")
	r := startRunner(t, env, ns)
	job := sleeper(ns, "doomed")
	if err := env.Client.Create(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, env, job)
	pids := runningTree(t, r, ns, "doomed")
	start := startTimes(pids)
	if len(pids) < 5 { // mpirun, 2 shells, 2 sleeps
		t.Fatalf("process tree %v", pids)
	}
	if err := env.Client.Delete(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pids, start)
	eventually(t, "runner lists no process", 5*time.Second, func() (bool, string) {
		ps := r.Processes()
		return len(ps) == 0, fmt.Sprint(ps)
	})
}

func testMPIJobSuspended(t *testing.T, env *testEnv) {
	ns := namespace(t, env, "mpi-suspend")
	r := startRunner(t, env, ns)
	ctx := context.Background()
	job := sleeper(ns, "paused")
	if err := env.Client.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, env, job)
	pids := runningTree(t, r, ns, "paused")
	start := startTimes(pids)

	patch := client.MergeFrom(job.DeepCopy())
	job.Spec.RunPolicy.Suspend = ptr.To(true)
	if err := env.Client.Patch(ctx, job, patch); err != nil {
		t.Fatal(err)
	}
	eventually(t, "MPIJob Suspended", 10*time.Second, func() (bool, string) {
		if e := get(t, env.Client, job); e != "" {
			return false, e
		}
		return mpiHas(&job.Status, kubeflow.JobSuspended) && !mpiHas(&job.Status, kubeflow.JobRunning), conditionsString(job)
	})
	if c := mpiCond(job, kubeflow.JobRunning); c.Reason != mpiJobSuspendedReason {
		t.Errorf("Running condition while suspended: %+v", c)
	}
	waitGone(t, pids, start)

	// Resuming runs the launcher again.
	patch = client.MergeFrom(job.DeepCopy())
	job.Spec.RunPolicy.Suspend = ptr.To(false)
	if err := env.Client.Patch(ctx, job, patch); err != nil {
		t.Fatal(err)
	}
	eventually(t, "MPIJob resumed and Running", 10*time.Second, func() (bool, string) {
		if e := get(t, env.Client, job); e != "" {
			return false, e
		}
		c := mpiCond(job, kubeflow.JobSuspended)
		return mpiHas(&job.Status, kubeflow.JobRunning) && c.Status == corev1.ConditionFalse && c.Reason == mpiJobResumedReason, conditionsString(job)
	})
	launcherPID(t, r, ns, "paused")
}

func testMPIJobLauncherLost(t *testing.T, env *testEnv) {
	ns := namespace(t, env, "mpi-lost")
	first := startRunner(t, env, ns)
	job := sleeper(ns, "orphan")
	if err := env.Client.Create(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, env, job)
	pids := runningTree(t, first, ns, "orphan")
	first.Stop()
	waitGone(t, pids, startTimes(pids))
	if get(t, env.Client, job); !mpiHas(&job.Status, kubeflow.JobRunning) {
		t.Fatalf("a stopping runner must leave the status alone: %s", conditionsString(job))
	}

	startRunner(t, env, ns)
	eventually(t, "MPIJob Failed as LauncherLost", 10*time.Second, func() (bool, string) {
		if e := get(t, env.Client, job); e != "" {
			return false, e
		}
		c := mpiCond(job, kubeflow.JobFailed)
		return c != nil && c.Status == corev1.ConditionTrue && c.Reason == ReasonLauncherLost, conditionsString(job)
	})
}
