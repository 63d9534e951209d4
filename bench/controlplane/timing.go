package main

import (
	"context"
	"sort"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// pipeline splits apply-to-Running in two: how long the operator took to
// create the last MPIJob, and how long each partition then took from its
// MPIJob's creation to its launcher running (the MPI operator, the Job
// controller, the scheduler and kwok), as p50 and p99.
type pipeline struct {
	lastCreated        time.Duration
	startP50, startP99 time.Duration
	started            int
}

func (b *bench) pipeline(ctx context.Context) (pipeline, error) {
	var jobs kubeflow.MPIJobList
	if err := b.c.List(ctx, &jobs, client.InNamespace(namespace)); err != nil {
		return pipeline{}, err
	}
	b.standIn.mu.Lock()
	defer b.standIn.mu.Unlock()
	var p pipeline
	var starts []time.Duration
	for _, j := range jobs.Items {
		created := j.CreationTimestamp.Time
		p.lastCreated = max(p.lastCreated, created.Sub(b.t0))
		if ran, ok := b.standIn.running[j.Name]; ok {
			starts = append(starts, ran.Sub(created))
		}
	}
	p.started = len(starts)
	if len(starts) > 0 {
		sort.Slice(starts, func(i, k int) bool { return starts[i] < starts[k] })
		p.startP50 = starts[len(starts)/2]
		p.startP99 = starts[min(len(starts)-1, len(starts)*99/100)]
	}
	return p, nil
}
