package controllers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// t0 is the policies' clock in tests.
var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// part builds an observed partition: index 0, restart r, in phase ph.
type part struct{ p partition }

func newPart(restart int, ph Phase) *part {
	return &part{p: partition{obj: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: PartitionName("c", 0, restart)}},
		restart: restart, state: PartitionState{Phase: ph}}}
}

// endedAgo marks it finished d before t0, for a reason.
func (b *part) endedAgo(d time.Duration, reason string) *part {
	b.p.state.FinishedAt, b.p.state.Reason = t0.Add(-d), reason
	return b
}

func (b *part) build() partition { return b.p }

// retries is a retry policy: backoff base and cap in seconds, restart budget.
func retries(base, limit, budget int32) v1alpha1.RetryPolicy {
	return v1alpha1.RetryPolicy{BackoffSeconds: base, MaxBackoffSeconds: limit, MaxPartitionRestarts: budget}
}
