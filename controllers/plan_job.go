package controllers

import (
	"encoding/json"
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/pods"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// planJob runs `blastfleet campaign plan` in the worker image: planning
// reads and validates every query, which can be gigabytes, so it runs
// beside the data rather than in the operator's memory. Planning is
// idempotent, so a retried pod or a re-created Job is harmless.
func planJob(c *v1alpha1.SearchCampaign, spec search.Spec, db *v1alpha1.BlastDatabase, loc, image string) (*batchv1.Job, error) {
	s := c.Spec
	// The search goes whole, as the plan stores it: the Job checks it as
	// the operator did, with nothing to parse from strings.
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("encoding the search for the planning Job: %w", err)
	}
	args := []string{"campaign", "plan",
		"--name", c.Name,
		"--queries", queriesURL(c),
		"--database", db.Status.Location,
		"--search-json", string(js),
		"--max-attempts", strconv.Itoa(int(s.RetryPolicy.MaxAttempts)),
		"--max-abandoned", strconv.Itoa(int(maxAbandoned(s.RetryPolicy))),
		"--lease-seconds", strconv.Itoa(int(s.RetryPolicy.LeaseSeconds)),
		"--renew-seconds", strconv.Itoa(ledger.RenewSecondsFor(int(s.RetryPolicy.LeaseSeconds))),
		"--skew-seconds", strconv.Itoa(int(s.RetryPolicy.ClockSkewSeconds)),
		"--output", loc,
	}
	if n := s.RetryPolicy.MaxStoppedAttempts; n > 0 {
		args = append(args, "--max-stopped", strconv.Itoa(int(n)))
	}
	if s.Chunking.Queries != nil {
		args = append(args, "--chunk-queries", strconv.Itoa(int(*s.Chunking.Queries)))
	} else if s.Chunking.Letters != nil {
		args = append(args, "--chunk-letters", strconv.FormatInt(*s.Chunking.Letters, 10))
	}
	// Planning streams the queries once and writes the chunks' index:
	// little of either.
	return campaignJob(c, db, PlanJobName(c.Name), componentPlan, args, image), nil
}

// campaignJob is a Job of the campaign's running `blastfleet` with args in
// the worker image, beside the partitions: their service account,
// placement and storage, a small request, restricted, retried twice.
func campaignJob(c *v1alpha1.SearchCampaign, db *v1alpha1.BlastDatabase, name, component string, args []string, image string) *batchv1.Job {
	labels := map[string]string{LabelCampaign: c.Name, LabelComponent: component, LabelManagedBy: managedByValue}
	st := campaignStorage(c, db)
	pod := pods.Pod{
		Labels:        labels,
		Placement:     partitionPlacement(c.Spec.Partitions),
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name:                     component,
			Image:                    image,
			Command:                  []string{"blastfleet"},
			Args:                     args,
			Env:                      st.Env,
			VolumeMounts:             st.Mounts,
			Resources:                pods.WithRequests(corev1.ResourceRequirements{}, "100m", "256Mi"),
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		}},
		Volumes: st.Volumes,
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To[int32](2),
			TTLSecondsAfterFinished: ptr.To[int32](86400),
			Template:                pod.Template(),
		},
	}
}

// maxAbandoned is the policy's, or for a campaign stored before the field
// existed (no default applied), the ledger's default.
func maxAbandoned(p v1alpha1.RetryPolicy) int32 {
	if p.MaxAbandonedAttempts > 0 {
		return p.MaxAbandonedAttempts
	}
	return int32(max(ledger.DefaultMaxAbandoned, int(p.MaxAttempts)))
}
