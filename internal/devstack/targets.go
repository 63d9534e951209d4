package devstack

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/blastfleet/blastfleet/internal/localrunner"
)

// targetGroup is one entry of a Prometheus file_sd file.
type targetGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

// engineTargets lists every rank of every running MPIJob: rank r serves
// on the block's base + r.
func engineTargets(procs []localrunner.Process) []targetGroup {
	out := []targetGroup{}
	for _, p := range procs {
		if p.Kind != "MPIJob" || p.MetricsPorts == 0 {
			continue
		}
		for r := range p.MetricsPorts {
			out = append(out, targetGroup{
				Targets: []string{hostPort(p.MetricsPortBase + r)},
				Labels:  map[string]string{"namespace": p.Namespace, "mpijob": p.Name, "rank": fmt.Sprint(r)},
			})
		}
	}
	slices.SortFunc(out, func(a, b targetGroup) int {
		switch {
		case a.Targets[0] < b.Targets[0]:
			return -1
		case a.Targets[0] > b.Targets[0]:
			return 1
		}
		return 0
	})
	return out
}

func writeTargets(path string, groups []targetGroup) error {
	if groups == nil {
		groups = []targetGroup{}
	}
	return writeJSON(path, groups, 0o644)
}

// targetsWriter rewrites the file only when the targets change, so
// Prometheus rereads it only then.
type targetsWriter struct {
	path string
	last []targetGroup
}

func (w *targetsWriter) update(procs []localrunner.Process) error {
	g := engineTargets(procs)
	if w.last != nil && reflect.DeepEqual(g, w.last) {
		return nil
	}
	if err := writeTargets(w.path, g); err != nil {
		return fmt.Errorf("engine targets: %w", err)
	}
	w.last = g
	return nil
}
