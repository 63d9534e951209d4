package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// writeStatus writes the status gathered during the reconcile, once, and
// only then emits its events, so events never describe a state that was
// not recorded.
func (run *campaignRun) writeStatus(ctx context.Context) error {
	c := run.c
	c.Status.ObservedGeneration = c.Generation
	if c.Status.Phase == "" {
		c.Status.Phase = "Pending"
	}
	if !equality.Semantic.DeepEqual(run.before, &c.Status) {
		if err := run.r.Status().Update(ctx, c); err != nil {
			return fmt.Errorf("writing status: %w", err)
		}
	}
	for _, e := range run.events {
		t := corev1.EventTypeNormal
		if e.warning {
			t = corev1.EventTypeWarning
		}
		if run.r.Recorder != nil {
			run.r.Recorder.Eventf(c, nil, t, e.reason, e.action, "%s", truncate(e.note, 1000))
		}
	}
	return nil
}
