package controllers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// TestHeldCount: a deadline campaign starts at partitions.count and then
// holds its last desired count, always within [min, max].
func TestHeldCount(t *testing.T) {
	for _, tc := range []struct {
		name            string
		count, min, max int32
		before          int32
		want            int32
	}{
		{"start at count", 2, 1, 5, 0, 2},
		{"start below min", 1, 3, 5, 0, 3},
		{"start above max", 8, 1, 5, 0, 5},
		{"hold the last decision", 2, 1, 5, 4, 4},
		{"max lowered below it", 2, 1, 3, 4, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &v1alpha1.SearchCampaign{Spec: v1alpha1.SearchCampaignSpec{
				Partitions: v1alpha1.Partitions{Count: tc.count, Min: ptr.To(tc.min), Max: ptr.To(tc.max)},
				Deadline:   &v1alpha1.Deadline{After: &metav1.Duration{Duration: time.Hour}},
			}}
			run := &campaignRun{c: c, before: &v1alpha1.SearchCampaignStatus{Partitions: v1alpha1.PartitionCounts{Desired: tc.before}}}
			if got := run.partitionCount(); got != tc.want {
				t.Errorf("partitionCount = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestDeadline: a time is itself; a duration counts from the start, and
// before the start there is no deadline yet.
func TestDeadline(t *testing.T) {
	at := time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)
	start := metav1.NewTime(at.Add(-6 * time.Hour))
	c := &v1alpha1.SearchCampaign{}
	if _, ok := deadlineOf(c); ok {
		t.Error("a deadline without spec.deadline")
	}
	c.Spec.Deadline = &v1alpha1.Deadline{Time: &metav1.Time{Time: at}}
	if got, ok := deadlineOf(c); !ok || !got.Equal(at) {
		t.Errorf("deadline.time: %v %v", got, ok)
	}
	c.Spec.Deadline = &v1alpha1.Deadline{After: &metav1.Duration{Duration: 6 * time.Hour}}
	if _, ok := deadlineOf(c); ok {
		t.Error("deadline.after before the start: want none")
	}
	c.Status.StartTime = &start
	if got, ok := deadlineOf(c); !ok || !got.Equal(at) {
		t.Errorf("deadline.after: %v %v, want %v", got, ok, at)
	}
}
