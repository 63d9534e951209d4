package output

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestParseStrategy(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Strategy
		flow Flow
	}{
		{"", WorkerMerge{}, Gather},
		{"worker-merge", WorkerMerge{}, Gather},
		{"worker-individual", WorkerIndividual{}, Gather},
		{"worker-collective", WorkerCollective{}, Collective},
		{"master-writing", MasterWriting{}, ToMaster},
	} {
		s, err := ParseStrategy(tt.name)
		if err != nil {
			t.Fatalf("ParseStrategy(%q): %v", tt.name, err)
		}
		if s != tt.want || s.Flow() != tt.flow {
			t.Errorf("ParseStrategy(%q) = %T (flow %d), want %T (flow %d)", tt.name, s, s.Flow(), tt.want, tt.flow)
		}
		if tt.name != "" && s.Name() != tt.name {
			t.Errorf("ParseStrategy(%q).Name() = %q", tt.name, s.Name())
		}
	}
	for _, name := range Strategies {
		if s, err := ParseStrategy(name); err != nil || s.Name() != name {
			t.Errorf("Strategies lists %q, which parses as %v, %v", name, s, err)
		}
	}
	for _, name := range []string{"WorkerMerge", "fastest", "worker_merge", "master"} {
		s, err := ParseStrategy(name)
		if err == nil {
			t.Errorf("ParseStrategy(%q) = %v, want an error", name, s)
			continue
		}
		if !strings.Contains(err.Error(), "unknown") || !strings.Contains(err.Error(), "worker-collective") {
			t.Errorf("ParseStrategy(%q) error %q, want it to say unknown and list the strategies", name, err)
		}
	}
}

// lines builds a block's lines from (holder, size) pairs.
func lines(pairs ...int64) []Line {
	ls := make([]Line, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		ls = append(ls, Line{Holder: int(pairs[i]), Size: pairs[i+1]})
	}
	return ls
}

const mib = 1 << 20

var (
	fileLayout = Layout{Workers: 3, MinPart: 1}
	s3Layout   = Layout{Workers: 3, MinPart: 5 * mib}
)

func TestNewBlock(t *testing.T) {
	b := NewBlock(4, 1000, lines(2, 10, 1, 5, 2, 7))
	if b.Seq != 4 || b.Offset != 1000 || b.Size != 22 || !reflect.DeepEqual(b.Held, map[int]int64{1: 5, 2: 17}) {
		t.Errorf("NewBlock = %+v", b)
	}
}

func TestPlans(t *testing.T) {
	tests := []struct {
		name     string
		strategy Strategy
		lines    []Line
		layout   Layout
		want     []Write
	}{
		{"worker-merge: whole block to the biggest holder", WorkerMerge{}, lines(1, 10, 2, 30, 1, 15), fileLayout,
			[]Write{{Writer: 2, From: 0, To: 3}}},
		{"worker-merge on S3: one part", WorkerMerge{}, lines(1, 6*mib, 2, 6*mib, 3, 7*mib), s3Layout,
			[]Write{{Writer: 3, From: 0, To: 3}}},
		{"master-writing: rank 0 writes", MasterWriting{}, lines(1, 10, 2, 30), fileLayout,
			[]Write{{Writer: 0, From: 0, To: 2}}},
		{"master-writing on S3", MasterWriting{}, lines(1, 6*mib, 2, 6*mib), s3Layout,
			[]Write{{Writer: 0, From: 0, To: 2}}},
		{"worker-individual on a file: each holder its own lines", WorkerIndividual{}, lines(3, 10, 1, 5, 3, 7, 1, 1), fileLayout,
			[]Write{{Writer: 1, From: 0, To: 4, Own: true}, {Writer: 3, From: 0, To: 4, Own: true}}},
		{"worker-individual on a file: one holder", WorkerIndividual{}, lines(2, 10, 2, 5), fileLayout,
			[]Write{{Writer: 2, From: 0, To: 2, Own: true}}},
		{"worker-individual on S3: under two parts' minimum, one part", WorkerIndividual{}, lines(1, 3*mib, 2, 4*mib, 1, 2*mib), s3Layout,
			[]Write{{Writer: 1, From: 0, To: 3}}},
		{"worker-individual on S3: a part per holder, by who holds most of it", WorkerIndividual{},
			lines(2, 4*mib, 1, 1*mib, 2, 1*mib, 1, 5*mib, 2, 1*mib), s3Layout,
			[]Write{{Writer: 2, From: 0, To: 3}, {Writer: 1, From: 3, To: 5}}},
		{"worker-individual on S3: a different holder per part where possible", WorkerIndividual{},
			lines(1, 5*mib, 1, 4*mib, 2, 2*mib), s3Layout,
			[]Write{{Writer: 1, From: 0, To: 1}, {Writer: 2, From: 1, To: 3}}},
		{"worker-individual on S3: no more parts than the size allows", WorkerIndividual{},
			lines(1, 5*mib, 2, 1*mib, 3, 5*mib), s3Layout,
			[]Write{{Writer: 1, From: 0, To: 2}, {Writer: 3, From: 2, To: 3}}},
		{"worker-collective on a file: a domain per worker, in rank order", WorkerCollective{},
			lines(2, 10, 2, 10, 1, 10, 3, 10, 3, 10, 3, 10), fileLayout,
			[]Write{{Writer: 1, From: 0, To: 2}, {Writer: 2, From: 2, To: 4}, {Writer: 3, From: 4, To: 6}}},
		{"worker-collective on a file: fewer lines than workers", WorkerCollective{}, lines(3, 10, 3, 10), fileLayout,
			[]Write{{Writer: 1, From: 0, To: 1}, {Writer: 2, From: 1, To: 2}}},
		{"worker-collective on S3: domains of at least 5 MiB", WorkerCollective{},
			lines(3, 3*mib, 3, 3*mib, 2, 3*mib, 1, 3*mib), s3Layout,
			[]Write{{Writer: 1, From: 0, To: 2}, {Writer: 2, From: 2, To: 4}}},
		{"worker-collective on S3: a small last block is one domain", WorkerCollective{}, lines(2, 100, 3, 200), s3Layout,
			[]Write{{Writer: 1, From: 0, To: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBlock(0, 0, tt.lines)
			// Map iteration order is random: plan many times.
			for range 20 {
				if got := tt.strategy.Plan(b, tt.layout); !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("Plan = %+v\nwant   %+v", got, tt.want)
				}
			}
		})
	}
}

// TestPlanProperties checks every strategy's plans of random blocks: the
// writes cover the block in order, every line is written exactly once by
// a rank that may write it, and S3 parts respect the minimum.
func TestPlanProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range Strategies {
		s, _ := ParseStrategy(name)
		for i := range 300 {
			workers := 1 + rng.IntN(6)
			ls := make([]Line, 1+rng.IntN(40))
			for j := range ls {
				ls[j] = Line{Holder: 1 + rng.IntN(workers), Size: 1 + rng.Int64N(2*mib)}
			}
			for _, layout := range []Layout{{Workers: workers, MinPart: 1}, {Workers: workers, MinPart: 5 * mib}} {
				b := NewBlock(i, 0, ls)
				t.Run(fmt.Sprintf("%s/%d/min=%d", name, i, layout.MinPart), func(t *testing.T) {
					checkPlan(t, s, b, layout, s.Plan(b, layout))
				})
			}
		}
	}
}

func checkPlan(t *testing.T, s Strategy, b *Block, l Layout, ws []Write) {
	t.Helper()
	if len(ws) == 0 {
		t.Fatal("no writes")
	}
	written := make([]int, len(b.Lines))
	next := 0
	for i, w := range ws {
		if w.Writer < 0 || w.Writer > l.Workers || (w.Writer == 0) != (s.Flow() == ToMaster) {
			t.Fatalf("write %d by rank %d of %d workers", i, w.Writer, l.Workers)
		}
		if w.Own {
			if l.MinPart > 1 {
				t.Fatalf("write %d scatters an S3 object", i)
			}
			for j := w.From; j < w.To; j++ {
				if b.Lines[j].Holder == w.Writer {
					written[j]++
				}
			}
			continue
		}
		if w.From != next || w.To <= w.From {
			t.Fatalf("write %d covers [%d,%d), want it to start at %d and be non-empty", i, w.From, w.To, next)
		}
		next = w.To
		var size int64
		for j := w.From; j < w.To; j++ {
			written[j]++
			size += b.Lines[j].Size
		}
		if size < l.MinPart && len(ws) > 1 {
			t.Fatalf("write %d of %d is %d bytes, under the %d minimum", i, len(ws), size, l.MinPart)
		}
		if s.Flow() == Collective && w.Writer != i+1 {
			t.Fatalf("domain %d written by rank %d, want %d", i, w.Writer, i+1)
		}
		if s.Flow() == Gather && b.Held[w.Writer] == 0 {
			t.Fatalf("write %d by rank %d, which holds none of the block", i, w.Writer)
		}
	}
	for j, n := range written {
		if n != 1 {
			t.Fatalf("line %d written %d times", j, n)
		}
	}
	if s.Flow() == Collective && len(ws) > l.Workers {
		t.Fatalf("%d domains for %d workers", len(ws), l.Workers)
	}
	if _, ok := s.(WorkerIndividual); ok && !ws[0].Own && len(ws) > len(b.Held) {
		t.Fatalf("%d parts for %d holders", len(ws), len(b.Held))
	}
}
