package operator

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestAssembleJob: every chunk decided, no result assembled and no
// partition left (they ended before assembling): the operator reads no
// result itself but starts a Job running `blastfleet campaign assemble`.
// A failed Job is reported and replaced; the real CLI, run as the Job's
// pod would run it against MinIO, assembles, and the campaign completes
// with the result's SHA-256.
func TestAssembleJob(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("asm")
	c := h.campaign("asm", "sprot", 2)
	h.create(c)
	l := h.writePlan("asm", "sprot", 3)
	parts := h.waitPartitions("asm", "asm-p0-r0", "asm-p1-r0")
	h.commitAll(l)
	// Once the operator has seen every chunk decided (else it would
	// replace partitions that ended early, and wait for those).
	h.waitCommitted("asm", 2)
	for _, j := range parts {
		h.setJobCondition(j, kubeflow.JobSucceeded, "Succeeded", "")
	}

	job := h.waitAssembleJob("asm")
	spec := job.Spec.Template.Spec
	if got := strings.Join(spec.Containers[0].Args, " "); got != "campaign assemble s3://blastfleet/campaigns/default/asm" {
		t.Errorf("assembly Job args %q", got)
	}
	if spec.Containers[0].Image != workerImage || !metav1IsControlledBy(job, "asm") || job.Labels[controllers.LabelCampaign] != "asm" {
		t.Errorf("assembly Job image %q owners %+v labels %v", spec.Containers[0].Image, job.OwnerReferences, job.Labels)
	}
	if d := job.Spec.ActiveDeadlineSeconds; d == nil || *d != int64(controllers.DefaultAssembleTimeout.Seconds()) {
		t.Errorf("assembly Job activeDeadlineSeconds %v, want --assemble-timeout", d)
	}
	h.noSecretsIn(job)
	// The operator assembled nothing while the Job was pending.
	time.Sleep(5 * poll)
	if done, err := l.Assembled(ctx); err != nil || done {
		t.Fatalf("assembled before the Job ran: %v, %v", done, err)
	}
	if p := h.get("asm").Status.Phase; p != v1alpha1.CampaignRunning {
		t.Errorf("phase %s while the Job assembles, want Running", p)
	}

	// A failed Job: Degraded with its reason, and another Job.
	h.setBatchJobCondition(job, batchv1.JobFailed, "BackoffLimitExceeded", "pod exited 1")
	h.eventually("AssembleFailed", 10*time.Second, func() (bool, string) {
		cond := meta.FindStatusCondition(h.get("asm").Status.Conditions, v1alpha1.ConditionDegraded)
		return cond != nil && cond.Reason == "AssembleFailed" && strings.Contains(cond.Message, "BackoffLimitExceeded"), condString(cond)
	})
	again := h.waitAssembleJob("asm")
	if again.UID == job.UID {
		t.Fatal("the failed assembly Job was not replaced")
	}

	// The Job's pod: the real CLI with the Job's arguments and the
	// Secret's values for its credentials.
	h.runJob(again)
	h.setBatchJobCondition(again, batchv1.JobComplete, "Completed", "")
	done := h.waitPhase("asm", v1alpha1.CampaignComplete, 20*time.Second)
	asm, err := l.AssembledResult(ctx)
	if err != nil || asm == nil {
		t.Fatalf("assembled record %v, %v", asm, err)
	}
	if done.Status.Result != "s3://blastfleet/campaigns/default/asm/result" || done.Status.ResultSHA256 != asm.SHA256 || done.Status.ResultBytes != asm.Size || asm.Size == 0 {
		t.Errorf("status result %q sha %q bytes %d, want the Job's %+v", done.Status.Result, done.Status.ResultSHA256, done.Status.ResultBytes, asm)
	}
}

// waitAssembleJob waits for the campaign's assembly Job.
func (h *harness) waitAssembleJob(campaign string) *batchv1.Job {
	h.t.Helper()
	var job batchv1.Job
	h.eventually("assembly Job of "+campaign, 20*time.Second, func() (bool, string) {
		err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: controllers.AssembleJobName(campaign)}, &job)
		if err != nil {
			return false, err.Error()
		}
		return job.DeletionTimestamp.IsZero() && len(job.Status.Conditions) == 0, "an ended Job"
	})
	return &job
}

// waitCommitted waits for status.chunks.committed to be n.
func (h *harness) waitCommitted(campaign string, n int32) {
	h.t.Helper()
	h.eventually(fmt.Sprintf("%d chunks committed", n), 10*time.Second, func() (bool, string) {
		c := h.get(campaign).Status.Chunks
		return c.Committed == n, fmt.Sprintf("%+v", c)
	})
}

// setBatchJobCondition writes a Job condition as the Job controller would.
func (h *harness) setBatchJobCondition(job *batchv1.Job, t batchv1.JobConditionType, reason, msg string) {
	h.t.Helper()
	now := metav1.Now()
	if t == batchv1.JobComplete {
		// The API server's Job rules: Complete needs SuccessCriteriaMet first.
		job.Status.StartTime, job.Status.CompletionTime = &now, &now
		job.Status.Succeeded = 1
		job.Status.Conditions = append(job.Status.Conditions, batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: reason, LastTransitionTime: now})
	} else {
		job.Status.StartTime = &now
		job.Status.Failed = 1
		job.Status.Conditions = append(job.Status.Conditions, batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: now})
	}
	job.Status.Conditions = append(job.Status.Conditions, batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: now})
	if err := h.c.Status().Update(context.Background(), job); err != nil {
		h.t.Fatalf("setting %s on Job %s: %v", t, job.Name, err)
	}
}

// runJob runs a Job's container command here, as its pod would: the
// real CLI binary, its plain variables, and its Secret references
// resolved from the API server.
func (h *harness) runJob(job *batchv1.Job) {
	h.t.Helper()
	ctr := job.Spec.Template.Spec.Containers[0]
	if len(ctr.Command) != 1 || ctr.Command[0] != "blastfleet" {
		h.t.Fatalf("Job %s runs %q, want blastfleet", job.Name, ctr.Command)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.t.TempDir()}
	for _, e := range ctr.Env {
		v := e.Value
		if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil {
			var s corev1.Secret
			if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: job.Namespace, Name: ref.SecretKeyRef.Name}, &s); err != nil {
				h.t.Fatalf("Job %s: Secret %s: %v", job.Name, ref.SecretKeyRef.Name, err)
			}
			v = string(s.Data[ref.SecretKeyRef.Key])
		}
		env = append(env, e.Name+"="+v)
	}
	cmd := exec.Command(testenv.BuiltBinaries(h.t).CLI, ctr.Args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("Job %s: blastfleet %s: %v\n%s", job.Name, strings.Join(ctr.Args, " "), err, out)
	}
	h.t.Logf("Job %s: %s", job.Name, out)
}

func condString(c *metav1.Condition) string {
	if c == nil {
		return "no condition"
	}
	return c.Reason + ": " + c.Message
}

// assembleAsPartition assembles the result as the partition that saw the
// last chunk decided does before it exits.
func (h *harness) assembleAsPartition(l *ledger.Ledger) {
	h.t.Helper()
	if _, err := l.Assemble(context.Background()); err != nil {
		h.t.Fatalf("assembling as a partition: %v", err)
	}
}
