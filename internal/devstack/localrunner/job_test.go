package localrunner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// shJob is a Job whose pod runs /bin/sh -c script with a /scratch
// emptyDir, as the operator's sharding Jobs mount one.
func shJob(ns, name, script string, env ...corev1.EnvVar) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{
					Name: "c", Image: "worker:test", Command: []string{"/bin/sh", "-c"}, Args: []string{script}, Env: env,
					VolumeMounts: []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}},
				}},
				Volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			}},
		},
	}
}

func waitJob(t *testing.T, env *testEnv, job *batchv1.Job, want batchv1.JobConditionType) {
	t.Helper()
	eventually(t, "Job "+string(want), 20*time.Second, func() (bool, string) {
		if e := get(t, env.Client, job); e != "" {
			return false, e
		}
		var conds []string
		for _, c := range job.Status.Conditions {
			conds = append(conds, string(c.Type)+"="+string(c.Status))
		}
		return jobHas(&job.Status, want), strings.Join(conds, ",")
	})
}

func testIndexedJob(t *testing.T, env *testEnv) {
	ns := namespace(t, env, "job-indexed")
	r := startRunner(t, env, ns)
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: ns},
		Data:       map[string][]byte{"token": []byte("s3cret")},
	}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// $(OUT) and $(JOB_COMPLETION_INDEX) are the kubelet's expansion;
	// $TOKEN and $JOB_COMPLETION_INDEX the shell's; /scratch is rewritten.
	job := shJob(ns, "shards",
		`echo "$TOKEN $JOB_COMPLETION_INDEX" > /scratch/v && sleep 0.3 && cp /scratch/v $(OUT)/$(JOB_COMPLETION_INDEX)`,
		corev1.EnvVar{Name: "OUT", Value: out},
		corev1.EnvVar{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "token"}}})
	job.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	job.Spec.Completions = ptr.To[int32](3)
	job.Spec.Parallelism = ptr.To[int32](2)
	job.Spec.BackoffLimitPerIndex = ptr.To[int32](1)
	if err := env.Client.Create(ctx, job); err != nil {
		t.Fatal(err)
	}

	// Parallelism bounds how many pods run at once.
	var mu sync.Mutex
	most := 0
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			mu.Lock()
			most = max(most, len(r.Processes()))
			mu.Unlock()
		}
	}()
	waitJob(t, env, job, batchv1.JobComplete)
	close(stop)

	st := job.Status
	if st.Succeeded != 3 || st.Failed != 0 || st.Active != 0 || st.CompletedIndexes != "0-2" || ptr.Deref(st.FailedIndexes, "x") != "" {
		t.Errorf("status counts: %+v", st)
	}
	if !jobHas(&st, batchv1.JobSuccessCriteriaMet) || st.StartTime == nil || st.CompletionTime == nil {
		t.Errorf("status: %+v", st)
	}
	mu.Lock()
	if most > 2 {
		t.Errorf("%d pods ran at once; parallelism is 2", most)
	}
	mu.Unlock()
	for _, i := range []string{"0", "1", "2"} {
		b, err := os.ReadFile(filepath.Join(out, i))
		if err != nil || strings.TrimSpace(string(b)) != "s3cret "+i {
			t.Errorf("index %s wrote %q (%v)", i, b, err)
		}
	}
	// The emptyDir stand-ins are gone with their pods.
	if left, _ := filepath.Glob(filepath.Join(r.opts.WorkDir, ns, "shards", "scratch", "*", "scratch")); len(left) != 0 {
		t.Errorf("scratch dirs left: %v", left)
	}
}

func testJobBackoffLimit(t *testing.T, env *testEnv) {
	ns := namespace(t, env, "job-backoff")
	// The image's blastfleet is Options.CLI here.
	cli := filepath.Join(t.TempDir(), "fake-cli")
	if err := os.WriteFile(cli, []byte("#!/bin/sh\necho \"$1 $2: no such queries file $3\" >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := startRunner(t, env, ns, func(o *Options) { o.CLI = cli })
	job := shJob(ns, "plan", "")
	job.Spec.Template.Spec.Containers[0].Command = []string{"blastfleet"}
	job.Spec.Template.Spec.Containers[0].Args = []string{"campaign", "plan", "--work-dir=/scratch"}
	job.Spec.BackoffLimit = ptr.To[int32](1)
	if err := env.Client.Create(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	waitJob(t, env, job, batchv1.JobFailed)
	st := job.Status
	c := jobCondition(&st, batchv1.JobFailed)
	if c.Reason != batchv1.JobReasonBackoffLimitExceeded || !strings.Contains(c.Message, "campaign plan: no such queries file --work-dir="+r.opts.WorkDir) || !strings.Contains(c.Message, "exited with code 3") {
		t.Errorf("Failed condition: %q %q", c.Reason, c.Message)
	}
	if !jobHas(&st, batchv1.JobFailureTarget) || st.Failed != 2 || st.Active != 0 || st.CompletionTime != nil {
		t.Errorf("status: %+v", st)
	}
	b, _ := os.ReadFile(r.JobLog(ns, "plan", false, 0))
	if strings.Count(string(b), "no such queries file") != 2 {
		t.Errorf("pod log should hold both attempts:\n%s", b)
	}
}

func testJobBackoffLimitPerIndex(t *testing.T, env *testEnv) {
	ns := namespace(t, env, "job-perindex")
	startRunner(t, env, ns)
	job := shJob(ns, "shards", `[ "$JOB_COMPLETION_INDEX" != 1 ] || { echo "bad shard" >&2; exit 2; }`)
	job.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	job.Spec.Completions = ptr.To[int32](3)
	job.Spec.Parallelism = ptr.To[int32](3)
	job.Spec.BackoffLimitPerIndex = ptr.To[int32](1)
	if err := env.Client.Create(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	waitJob(t, env, job, batchv1.JobFailed)
	st := job.Status
	c := jobCondition(&st, batchv1.JobFailed)
	if c.Reason != batchv1.JobReasonFailedIndexes || !strings.Contains(c.Message, "bad shard") {
		t.Errorf("Failed condition: %q %q", c.Reason, c.Message)
	}
	if st.CompletedIndexes != "0,2" || ptr.Deref(st.FailedIndexes, "") != "1" || st.Failed != 2 || st.Succeeded != 2 {
		t.Errorf("status: %+v", st)
	}
}
