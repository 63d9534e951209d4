package operator

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	dto "github.com/prometheus/client_model/go"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// BenchmarkScale100x8 runs 100 campaigns of 8 partitions each against the
// real API server and MinIO and reports how long the operator took to
// create all 800 MPIJobs, its reconcile latency and its heap.
//
//	go test -run '^$' -bench Scale100x8 -benchtime 1x ./test/operator/
func BenchmarkScale100x8(b *testing.B) {
	const campaigns, partitions = 100, 8
	h := newHarness(b)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for i := range campaigns {
		name := fmt.Sprintf("scale%03d", i)
		h.putQueries(name)
		h.writePlan(name, "sprot", 16)
		h.create(h.campaign(name, "sprot", partitions))
	}
	h.eventually("800 partitions", 10*time.Minute, func() (bool, string) {
		n := len(h.allPartitions())
		return n == campaigns*partitions, fmt.Sprint(n)
	})
	created := time.Since(start)
	time.Sleep(10 * time.Second) // steady state: ledger polls of 100 running campaigns
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	count, sum := reconcileTime("searchcampaign")
	b.ReportMetric(created.Seconds(), "s-to-800-partitions")
	b.ReportMetric(sum/float64(count)*1000, "ms/reconcile")
	b.ReportMetric(float64(count), "reconciles")
	b.ReportMetric(float64(after.HeapInuse)/(1<<20), "MiB-heap-in-use")
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20), "MiB-heap-growth")
}

// reconcileTime reads controller-runtime's reconcile time histogram.
func reconcileTime(controller string) (uint64, float64) {
	mfs, _ := crmetrics.Registry.Gather()
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_time_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if labelIs(m, "controller", controller) {
				return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
			}
		}
	}
	return 0, 0
}

func labelIs(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

func (h *harness) allPartitions() []kubeflow.MPIJob {
	var list kubeflow.MPIJobList
	if err := h.c.List(context.Background(), &list); err != nil {
		h.t.Fatal(err)
	}
	return list.Items
}
