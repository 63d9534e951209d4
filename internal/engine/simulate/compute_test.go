package simulate

import (
	"math"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

// Compute time is S3aSim's: (start-up + seconds per byte × result bytes) /
// speed, with each hit's result size in [MinResultBytes, 3×max(qlen, slen)].
func TestComputeTimeFormula(t *testing.T) {
	c := smallConfig()
	c.StartupSeconds, c.ByteSeconds, c.Speed, c.MinResultBytes = 0.5, 2e-6, 4, 150
	m, qs := newModel(t, c)
	f := format(t, "6 qseqid sseqid qlen slen evalue")
	res, err := m.Search(1, qs[1:5], []int{0, 3, 4}, f, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := time.Duration(math.Round((0.5 + 2e-6*float64(res.ResultBytes)) / 4 * 1e9))
	if res.Compute != want || res.Compute <= time.Duration(0.5/4*1e9) {
		t.Fatalf("compute %v for %d result bytes, want %v", res.Compute, res.ResultBytes, want)
	}
	// Untruncated, every HSP is a record: the result bytes must lie
	// within S3aSim's bounds summed over them.
	if res.HSPs != len(res.Records) || res.HSPs == 0 {
		t.Fatalf("%d HSPs, %d records", res.HSPs, len(res.Records))
	}
	var lo, hi int64
	for _, r := range res.Records {
		q := qs[1+r.Query]
		lo += 150
		hi += max(150, 3*int64(max(q.Len, int(r.SLen))))
	}
	if res.ResultBytes < lo || res.ResultBytes > hi {
		t.Fatalf("result bytes %d outside [%d, %d]", res.ResultBytes, lo, hi)
	}
	// Uniform draws land near the middle of those bounds, not at an end.
	if mid := float64(lo+hi) / 2; math.Abs(float64(res.ResultBytes)-mid) > 0.1*mid {
		t.Errorf("result bytes %d, expected about %.0f", res.ResultBytes, mid)
	}
	got, err := m.Compute(1, qs[1:5], []int{0, 3, 4})
	if err != nil || got != res.Compute {
		t.Fatalf("Compute %v (%v), Search's %v", got, err, res.Compute)
	}
}

func TestComputeSpeedAndStartup(t *testing.T) {
	c := smallConfig()
	m1, qs := newModel(t, c)
	c.Speed = 2
	m2, _ := newModel(t, c)
	all := allShards(m1)
	t1, _ := m1.Compute(0, qs, all)
	t2, _ := m2.Compute(0, qs, all)
	if d := t1 - 2*t2; d < -2 || d > 2 {
		t.Fatalf("speed 1: %v, speed 2: %v; want half", t1, t2)
	}
	empty, err := m1.Compute(0, nil, all)
	if err != nil || empty != time.Duration(c.StartupSeconds*1e9) {
		t.Fatalf("a task without hits: %v (%v), want the start-up %vs", empty, err, c.StartupSeconds)
	}
}

// The search's work is additive: one big task does the work of all the
// small ones, plus fewer start-ups.
func TestResultBytesAdditiveOverTasks(t *testing.T) {
	m, qs := newModel(t, smallConfig())
	f := format(t, "6 std")
	whole, err := m.Search(0, qs, allShards(m), f, merge.Options{MaxTargetSeqs: 3})
	if err != nil {
		t.Fatal(err)
	}
	var bytes int64
	var hsps int
	for _, tk := range cross(blocks(len(qs), 4), [][]int{{0, 1, 2}, {3}, {4, 5}}) {
		res, err := m.Search(tk.first, qs[tk.first:tk.end], tk.shards, f, merge.Options{MaxTargetSeqs: 3})
		if err != nil {
			t.Fatal(err)
		}
		bytes += res.ResultBytes
		hsps += res.HSPs
	}
	if bytes != whole.ResultBytes || hsps != whole.HSPs {
		t.Fatalf("six tasks: %d HSPs, %d bytes; one task: %d HSPs, %d bytes", hsps, bytes, whole.HSPs, whole.ResultBytes)
	}
	if whole.HSPs <= len(whole.Records) {
		t.Fatalf("max_target_seqs 3 kept all %d HSPs: cut-offs must not reduce the work", whole.HSPs)
	}
}
