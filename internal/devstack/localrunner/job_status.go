package localrunner

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Reasons and messages as the Job controller writes them.
const (
	jobSuspendedReason = "JobSuspended"
	jobResumedReason   = "JobResumed"
)

func jobCondition(st *batchv1.JobStatus, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

func jobHas(st *batchv1.JobStatus, t batchv1.JobConditionType) bool {
	c := jobCondition(st, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

func jobFinished(st *batchv1.JobStatus) bool {
	return jobHas(st, batchv1.JobComplete) || jobHas(st, batchv1.JobFailed)
}

func newJobCondition(t batchv1.JobConditionType, reason, msg string) batchv1.JobCondition {
	now := metav1.Now()
	return batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastProbeTime: now, LastTransitionTime: now}
}

// setJobCondition sets a condition, keeping its transition time if its
// status does not change.
func setJobCondition(st *batchv1.JobStatus, t batchv1.JobConditionType, status corev1.ConditionStatus, reason, msg string) {
	c := newJobCondition(t, reason, msg)
	c.Status = status
	if cur := jobCondition(st, t); cur != nil {
		if cur.Status == status && cur.Reason == reason && cur.Message == msg {
			return
		}
		if cur.Status == status {
			c.LastTransitionTime = cur.LastTransitionTime
		}
		*cur = c
		return
	}
	st.Conditions = append(st.Conditions, c)
}

// evaluate decides a Job's outcome in the Job controller's order:
// backoff limit, deadline, failed indexes, then success. It returns the
// interim condition (FailureTarget or SuccessCriteriaMet), nil while the
// Job goes on. Failures carry the last failed pod's log tail, since
// there is no pod termination message to read locally.
func (run *jobRun) evaluate(job *batchv1.Job, now time.Time) *batchv1.JobCondition {
	fail := func(reason, msg string) *batchv1.JobCondition {
		if run.lastFailure != "" {
			msg += ": " + run.lastFailure
		}
		c := newJobCondition(batchv1.JobFailureTarget, reason, msg)
		return &c
	}
	if run.failed > run.backoffLimit {
		return fail(batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil && job.Status.StartTime != nil &&
		now.Sub(job.Status.StartTime.Time) >= time.Duration(*d)*time.Second {
		c := newJobCondition(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")
		return &c
	}
	if run.indexed && run.perIndex != nil {
		nFailed := len(run.failedIndexes)
		if run.maxFailedIndexes != nil && nFailed > int(*run.maxFailedIndexes) {
			return fail(batchv1.JobReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes")
		}
		if nFailed > 0 && nFailed+len(run.succeeded) >= run.completions {
			return fail(batchv1.JobReasonFailedIndexes, "Job has failed indexes")
		}
	}
	if int(run.succeededPods()) >= run.completions {
		c := newJobCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods")
		return &c
	}
	return nil
}

// untilDeadline is how long until activeDeadlineSeconds passes, 0 if unset.
func untilDeadline(job *batchv1.Job, now time.Time) time.Duration {
	d := job.Spec.ActiveDeadlineSeconds
	if d == nil || job.Status.StartTime == nil {
		return 0
	}
	return max(time.Until(job.Status.StartTime.Add(time.Duration(*d)*time.Second)), time.Millisecond)
}

// fillStatus writes the counts the Job controller keeps. Runner.mu held.
func (run *jobRun) fillStatus(st *batchv1.JobStatus) {
	active, terminating := run.counts()
	st.Active = active
	st.Ready = ptr.To(active) // a local process is ready once it runs
	st.Terminating = ptr.To(terminating)
	st.Failed = run.failed
	st.Succeeded = run.succeededPods()
	if run.indexed {
		st.CompletedIndexes = formatIndexes(run.succeeded)
		if run.perIndex != nil {
			st.FailedIndexes = ptr.To(formatIndexes(run.failedIndexes))
		}
	}
}

// finalCondition is the terminal condition an interim one leads to.
func finalCondition(interim *batchv1.JobCondition) batchv1.JobCondition {
	t := batchv1.JobFailed
	if interim.Type == batchv1.JobSuccessCriteriaMet {
		t = batchv1.JobComplete
	}
	return newJobCondition(t, interim.Reason, interim.Message)
}
