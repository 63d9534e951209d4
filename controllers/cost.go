package controllers

import (
	"context"
	"math"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// recordCost sets what a finished campaign cost: core-seconds in all and
// by site, from its partitions' run records. Once: the records are read
// only when the campaign finishes, never in the polls before.
func (run *campaignRun) recordCost(ctx context.Context) {
	s := &run.c.Status
	if !run.terminal() || run.store == nil || s.CoreSeconds != nil {
		return
	}
	var runs []runrecord.RunRecord
	var err error
	if rd := run.read; rd != nil && rd.asm != nil && rd.runsErr == nil {
		runs = rd.runs // read with the assembled result
	} else {
		countStoreRead(readRunRecords)
		runs, err = runrecord.ReadRuns(ctx, run.store)
	}
	if err != nil {
		// The cost is for reports; the campaign's outcome does not wait.
		log.FromContext(ctx).Info("reading the run records for the campaign's cost", "error", err.Error())
		return
	}
	cost := runrecord.CostOf(runs, run.now)
	s.CoreSeconds = ptr.To(int64(math.Round(cost.CoreSeconds)))
	for i := range s.Sites {
		name := s.Sites[i].Name
		secs := cost.Sites[name]
		if name == ledger.UnnamedSite {
			secs += cost.Sites[""]
		}
		s.Sites[i].CoreSeconds = int64(math.Round(secs))
	}
}

// estimateCost sets a planned campaign's query letters and, from the
// latest Complete campaign like it (same namespace, database, program
// and task) that recorded its cost, what it should cost.
func (run *campaignRun) estimateCost(ctx context.Context, letters int64) {
	s := &run.c.Status
	s.QueryLetters = letters
	if s.EstimatedCoreSeconds != nil || letters <= 0 {
		return
	}
	var list v1alpha1.SearchCampaignList
	if err := run.r.List(ctx, &list, client.InNamespace(run.c.Namespace)); err != nil {
		log.FromContext(ctx).Info("listing campaigns for a cost estimate", "error", err.Error())
		return
	}
	var like *v1alpha1.SearchCampaign
	for i := range list.Items {
		o := &list.Items[i]
		if o.UID == run.c.UID || o.Status.Phase != v1alpha1.CampaignComplete || o.Status.CoreSeconds == nil ||
			*o.Status.CoreSeconds <= 0 || o.Status.QueryLetters <= 0 || o.Status.CompletionTime == nil || !sameWork(o, run.c) {
			continue
		}
		if like == nil || o.Status.CompletionTime.After(like.Status.CompletionTime.Time) {
			like = o
		}
	}
	if like == nil {
		return
	}
	perLetter := float64(*like.Status.CoreSeconds) / float64(like.Status.QueryLetters)
	s.EstimatedCoreSeconds = ptr.To(int64(math.Ceil(perLetter * float64(letters))))
}

// sameWork: the two campaigns search the same database with the same
// program and task, so their cost per query letter is alike.
func sameWork(a, b *v1alpha1.SearchCampaign) bool {
	return a.Spec.DatabaseRef.Name == b.Spec.DatabaseRef.Name && a.Spec.Program == b.Spec.Program && taskOption(a) == taskOption(b)
}

func taskOption(c *v1alpha1.SearchCampaign) string {
	for _, o := range c.Spec.BlastOptions {
		if o.Name == "task" {
			return o.Value
		}
	}
	return ""
}
