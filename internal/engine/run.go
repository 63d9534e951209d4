package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/blastfleet/blastfleet/internal/engine/transport"
)

// Run runs this rank's role: the master on rank 0 (it returns the run's
// summary), a worker elsewhere (it returns a nil summary).
func Run(ctx context.Context, cfg *Config, tr transport.Transport) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if tr.Rank() == 0 {
		return runMaster(ctx, cfg, tr)
	}
	return nil, runWorker(ctx, cfg, tr)
}

// RunLocal runs a master and workers in one process over the in-process
// transport.
func RunLocal(ctx context.Context, cfg *Config, workers int) (*Summary, error) {
	if workers < 1 {
		return nil, fmt.Errorf("--workers must be >= 1")
	}
	trs := transport.NewLocal(workers + 1)
	// A worker that fails alone would leave the master waiting for it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, workers+1)
	for r := 1; r <= workers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			if _, errs[r] = Run(ctx, cfg, trs[r]); errs[r] != nil {
				cfg.Log.Error(errs[r], "worker failed", "rank", r)
				cancel()
			}
		}(r)
	}
	sum, err := Run(ctx, cfg, trs[0])
	wg.Wait()
	for _, t := range trs {
		t.Close()
	}
	for r, e := range errs {
		if e != nil {
			return nil, fmt.Errorf("rank %d: %w", r, e)
		}
	}
	return sum, err
}
