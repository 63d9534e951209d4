package devstack

import (
	"fmt"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
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
	return sortTargets(out)
}

// podTargets lists, on the cluster, every port named metrics* of every
// running pod (the engine ranks of worker pods: rank r of a pod serves
// on its r-th metrics port), as the chart's PodMonitor selects them.
func podTargets(pods []corev1.Pod) []targetGroup {
	out := []targetGroup{}
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" {
			continue
		}
		for _, c := range p.Spec.Containers {
			for _, port := range c.Ports {
				if !strings.HasPrefix(port.Name, "metrics") {
					continue
				}
				out = append(out, targetGroup{
					Targets: []string{net.JoinHostPort(p.Status.PodIP, strconv.Itoa(int(port.ContainerPort)))},
					Labels:  map[string]string{"namespace": p.Namespace, "pod": p.Name},
				})
			}
		}
	}
	return sortTargets(out)
}

func sortTargets(gs []targetGroup) []targetGroup {
	slices.SortFunc(gs, func(a, b targetGroup) int { return strings.Compare(a.Targets[0], b.Targets[0]) })
	return gs
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

func (w *targetsWriter) update(g []targetGroup) error {
	if w.last != nil && reflect.DeepEqual(g, w.last) {
		return nil
	}
	if err := writeTargets(w.path, g); err != nil {
		return fmt.Errorf("engine targets: %w", err)
	}
	w.last = g
	return nil
}
