package controllers

import (
	"context"
	"fmt"

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
	emit(run.r.Recorder, c, run.events)
	return nil
}
