package localrunner

import (
	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons the MPI operator (v0.8) gives its MPIJob conditions, and ours.
const (
	mpiJobCreatedReason   = "MPIJobCreated"
	mpiJobRunningReason   = "MPIJobRunning"
	mpiJobSucceededReason = "MPIJobSucceeded"
	mpiJobSuspendedReason = "MPIJobSuspended"
	mpiJobResumedReason   = "MPIJobResumed"
	// ReasonLauncherLost: the MPIJob was Running under a runner that
	// stopped or crashed, so its launcher process is gone.
	ReasonLauncherLost = "LauncherLost"
	// backoffLimitExceeded is the launcher Job's failure reason, which
	// the MPI operator copies.
	backoffLimitExceeded = "BackoffLimitExceeded"
)

// The helpers below follow the MPI operator's mpi_job_controller_status.go,
// so the conditions' order, status flips and timestamps match.

func mpiCondition(st *kubeflow.JobStatus, t kubeflow.JobConditionType) *kubeflow.JobCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

func mpiHas(st *kubeflow.JobStatus, t kubeflow.JobConditionType) bool {
	c := mpiCondition(st, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

func mpiFinished(st *kubeflow.JobStatus) bool {
	return mpiHas(st, kubeflow.JobSucceeded) || mpiHas(st, kubeflow.JobFailed)
}

// setMPICondition sets a condition unless it holds with the same status
// and reason; a condition keeps its transition time while its status
// stays. Running and Restarting exclude each other, and a terminal
// condition turns Running (and an older Failed) False.
func setMPICondition(st *kubeflow.JobStatus, t kubeflow.JobConditionType, status corev1.ConditionStatus, reason, msg string) {
	now := metav1.Now()
	cond := kubeflow.JobCondition{Type: t, Status: status, Reason: reason, Message: msg, LastUpdateTime: now, LastTransitionTime: now}
	cur := mpiCondition(st, t)
	if cur != nil && cur.Status == status && cur.Reason == reason {
		return
	}
	if cur != nil && cur.Status == status {
		cond.LastTransitionTime = cur.LastTransitionTime
	}
	var out []kubeflow.JobCondition
	for _, c := range st.Conditions {
		if c.Type == t ||
			t == kubeflow.JobRestarting && c.Type == kubeflow.JobRunning ||
			t == kubeflow.JobRunning && c.Type == kubeflow.JobRestarting {
			continue
		}
		if (t == kubeflow.JobFailed || t == kubeflow.JobSucceeded) && (c.Type == kubeflow.JobRunning || c.Type == kubeflow.JobFailed) {
			c.Status = corev1.ConditionFalse
		}
		out = append(out, c)
	}
	st.Conditions = append(out, cond)
}

// replicaStatus resets and returns a replica type's status, as the MPI
// operator recounts every sync.
func replicaStatus(st *kubeflow.JobStatus, t kubeflow.MPIReplicaType) *kubeflow.ReplicaStatus {
	if st.ReplicaStatuses == nil {
		st.ReplicaStatuses = map[kubeflow.MPIReplicaType]*kubeflow.ReplicaStatus{}
	}
	rs := &kubeflow.ReplicaStatus{}
	st.ReplicaStatuses[t] = rs
	return rs
}
