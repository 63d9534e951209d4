package main

import (
	"fmt"

	"github.com/blastfleet/blastfleet/internal/engine/scheduler"
)

// replayRow is one schedule's group times when per-query costs are dealt
// to groups as the schedule would deal them.
type replayRow struct {
	Schedule string
	Balance  scheduler.Balance
}

// replay deals per-query costs to groups: static spans from the splits
// (scheduler.LengthSplit, WeightSplit) summed with GroupTimes, and dynamic
// scheduling reduced to one query per task, each to the group free first
// (DynamicTimes); and, as the engine's runs with one shard per task do,
// each query as shards tasks of an equal share of its cost (an
// assumption: the shards are balanced by letters, not by work).
func replay(lengths []int, costs []float64, groups, shards int) ([]replayRow, error) {
	ls, err := scheduler.LengthSplit(lengths, groups)
	if err != nil {
		return nil, err
	}
	ws, err := scheduler.WeightSplit(lengths, groups, scheduler.DefaultWeightFactor)
	if err != nil {
		return nil, err
	}
	dyn, err := scheduler.DynamicTimes(costs, groups)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	lb, err := scheduler.GroupTimes(ls, costs)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	wb, err := scheduler.GroupTimes(ws, costs)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var split []float64
	for _, c := range costs {
		for range shards {
			split = append(split, c/float64(shards))
		}
	}
	dynSplit, err := scheduler.DynamicTimes(split, groups)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return []replayRow{{"dynamic (whole queries)", dyn}, {fmt.Sprintf("dynamic (query x %d shard tasks)", shards), dynSplit},
		{"length-split", lb}, {"weight-split", wb}}, nil
}
