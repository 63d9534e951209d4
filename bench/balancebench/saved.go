package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// savedWorkload is a workload as -json writes it.
type savedWorkload struct {
	Name    string    `json:"name"`
	About   []string  `json:"about"`
	Args    []string  `json:"args"`
	Queries []string  `json:"queries"`
	Lengths []int     `json:"lengths"`
	Costs   []float64 `json:"costSeconds"`
	CostOf  string    `json:"costOf"`
	Shards  int       `json:"shards"`
	Runs    []*run    `json:"runs"`
}

// savedRun is what -json writes and -from reads back: enough to print the
// report and draw the figures again without running anything.
type savedRun struct {
	Args    []string         `json:"args"` // the command line's flags
	Started time.Time        `json:"started"`
	Machine []string         `json:"machine"`
	Loads   []*savedWorkload `json:"workloads"`
}

func (b *bench) save(path string) error {
	s := &savedRun{Args: os.Args[1:], Started: b.started, Machine: b.machine}
	for _, w := range b.loads {
		s.Loads = append(s.Loads, &savedWorkload{Name: w.name, About: w.about, Args: w.args, Queries: w.queries,
			Lengths: w.lengths, Costs: w.costs, CostOf: w.costOf, Shards: w.shards, Runs: w.runs})
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("-json: %w", err)
	}
	return nil
}

// load reads a saved run back into b.
func (b *bench) load(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-from: %w", err)
	}
	var s savedRun
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("-from %s: %w", path, err)
	}
	if len(s.Loads) == 0 {
		return fmt.Errorf("-from %s: no workloads saved (a run saved before -from existed)", path)
	}
	b.started, b.machine = s.Started, s.Machine
	for _, w := range s.Loads {
		b.loads = append(b.loads, &workload{name: w.Name, about: w.About, args: w.Args, queries: w.Queries,
			lengths: w.Lengths, costs: w.Costs, costOf: w.CostOf, shards: w.Shards, runs: w.Runs})
	}
	return nil
}
