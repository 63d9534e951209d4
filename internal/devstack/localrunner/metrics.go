package localrunner

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

// MetricsPortEnv carries the first of a run's metrics ports: every rank
// of an MPIJob runs on this machine, so rank r serves on base+r (its
// local rank), and runs get disjoint blocks. Set only when
// Options.MetricsPortBase is set, with the engine bound to loopback and
// lingering a scrape interval after the run.
const MetricsPortEnv = enginemetrics.PortBaseEnv

// metricsLinger outlasts the local stack's 5 s scrape interval.
const metricsLinger = "6s"

// portBlocks hands out disjoint blocks of ports, one block per run.
type portBlocks struct {
	mu     sync.Mutex
	base   int
	blocks map[types.UID][2]int // [start, end)
}

func newPortBlocks(base int) *portBlocks {
	return &portBlocks{base: base, blocks: map[types.UID][2]int{}}
}

// acquire reserves n ports for uid (first fit) and returns the first.
func (p *portBlocks) acquire(uid types.UID, n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.blocks[uid]; ok {
		return b[0]
	}
	used := make([][2]int, 0, len(p.blocks))
	for _, b := range p.blocks {
		used = append(used, b)
	}
	slices.SortFunc(used, func(a, b [2]int) int { return a[0] - b[0] })
	start := p.base
	for _, b := range used {
		if start+n <= b[0] {
			break
		}
		start = max(start, b[1])
	}
	p.blocks[uid] = [2]int{start, start + n}
	return start
}

func (p *portBlocks) release(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.blocks, uid)
}

// lookup returns uid's block, if it holds one, without reserving any.
func (p *portBlocks) lookup(uid types.UID) (start, n int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.blocks[uid]
	return b[0], b[1] - b[0], ok
}
