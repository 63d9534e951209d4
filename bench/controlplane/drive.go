package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// drive applies the campaigns and follows them to the end, scraping the
// metrics every two seconds and making the restarts on the way.
func (b *bench) drive(ctx context.Context) error {
	sctx, stopScraping := context.WithCancel(ctx)
	defer stopScraping()
	go func() {
		for sctx.Err() == nil {
			b.scrapeAll(sctx)
			select {
			case <-sctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}()
	if err := b.w.putQueries(ctx); err != nil {
		return err
	}
	b.t0 = time.Now()
	if err := b.w.apply(ctx); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "applied %d campaigns in %.1f s\n", b.cfg.campaigns, time.Since(b.t0).Seconds())
	total := b.cfg.campaigns * b.cfg.partitions
	deadline := b.t0.Add(b.cfg.timeout)
	lastLine := time.Time{}
	for {
		complete, failed, err := b.countCampaigns(ctx)
		if err != nil {
			return err
		}
		_, running := b.standIn.lastRunning()
		created := b.created("mpijobs")
		if b.settled == 0 && len(b.restarts) == 2 && time.Since(b.restartedAt) >= settleAfter {
			_ = b.opMetrics.scrape(ctx)
			b.opMetrics.mark()
			b.settled = time.Since(b.t0)
		}
		if time.Since(lastLine) >= 15*time.Second {
			heap, _ := b.opMetrics.gauge("go_memstats_heap_alloc_bytes")
			fmt.Fprintf(os.Stderr, "%5.0f s: MPIJobs created %d/%d, partitions run %d, campaigns complete %d failed %d, operator heap %.0f MiB\n",
				time.Since(b.t0).Seconds(), int(created), total, running, complete, failed, heap/(1<<20))
			lastLine = time.Now()
		}
		if err := b.faults(ctx, created, float64(total)); err != nil {
			return err
		}
		if failed > 0 {
			return fmt.Errorf("%d campaigns Failed (kubectl --kubeconfig %s -n %s get searchcampaigns)", failed, b.cp.kubeconfig, namespace)
		}
		if complete == b.cfg.campaigns {
			b.allDone = time.Since(b.t0)
			last, _ := b.standIn.lastRunning()
			b.lastRunning = last.Sub(b.t0)
			b.scrapeAll(ctx)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d campaigns Complete after %s; stand-in errors: %q; %s", complete, b.cfg.campaigns, b.cfg.timeout, b.standIn.errors(), b.describeWaiting(ctx))
		}
		time.Sleep(2 * time.Second)
	}
}

func (b *bench) scrapeAll(ctx context.Context) {
	// A failed scrape (a component restarting) is made up by the next.
	_ = b.opMetrics.scrape(ctx)
	_ = b.apiMetrics.scrape(ctx)
}

// created is how many objects of resource the API server created.
func (b *bench) created(resource string) float64 {
	return b.apiMetrics.sum("apiserver_request_total", "", func(l map[string]string) bool {
		return l["verb"] == "POST" && l["resource"] == resource && l["code"] == "201" && l["subresource"] == ""
	})[""]
}

func (b *bench) countCampaigns(ctx context.Context) (complete, failed int, err error) {
	var list v1alpha1.SearchCampaignList
	if err := b.cache.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return 0, 0, err
	}
	for _, c := range list.Items {
		switch c.Status.Phase {
		case v1alpha1.CampaignComplete:
			complete++
		case v1alpha1.CampaignFailed:
			failed++
		}
	}
	return complete, failed, nil
}

// faults restarts the operator once a third of the MPIJobs are created
// and the API server once two thirds are, in the middle of the creates
// where a lost answer or a stale cache would make a partition twice.
// A run with restarts off, or too small to reach the marks, makes none.
func (b *bench) faults(ctx context.Context, created, total float64) error {
	if !b.cfg.restarts {
		return nil
	}
	switch {
	case len(b.restarts) == 0 && created >= total/3:
		_ = b.opMetrics.scrape(ctx) // what the first operator counted, before it goes
		at := time.Since(b.t0)
		if err := b.op.restart(ctx); err != nil {
			return fmt.Errorf("restarting the operator: %w", err)
		}
		b.restarts = append(b.restarts, fmt.Sprintf("operator at %.0f s (%d MPIJobs created)", at.Seconds(), int(created)))
	case len(b.restarts) == 1 && created >= 2*total/3:
		_ = b.apiMetrics.scrape(ctx)
		at := time.Since(b.t0)
		if err := b.cp.apiserver.restart(ctx); err != nil {
			return fmt.Errorf("restarting the API server: %w", err)
		}
		b.restarts = append(b.restarts, fmt.Sprintf("kube-apiserver at %.0f s (%d MPIJobs created)", at.Seconds(), int(created)))
		b.restartedAt = time.Now()
	}
	return nil
}

// describeWaiting says, for a few campaigns not Complete, what they wait
// for (their Ready condition).
func (b *bench) describeWaiting(ctx context.Context) string {
	var list v1alpha1.SearchCampaignList
	if err := b.cache.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return err.Error()
	}
	var out []string
	for _, c := range list.Items {
		if c.Status.Phase == v1alpha1.CampaignComplete || len(out) == 5 {
			continue
		}
		why := "no Ready condition"
		if r := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionReady); r != nil {
			why = r.Reason + ": " + r.Message
		}
		out = append(out, fmt.Sprintf("%s is %s (%s)", c.Name, c.Status.Phase, why))
	}
	return strings.Join(out, "; ")
}
