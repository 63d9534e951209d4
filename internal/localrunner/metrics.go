package localrunner

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// MetricsPortEnv carries the first of a run's metrics ports: rank r of an
// MPIJob would serve metrics on base+r (r from OMPI_COMM_WORLD_RANK), so
// ranks sharing this machine do not collide on one port as they would
// not in pods. The engine has no metrics flag yet; this is the hook it
// will read. Set only when Options.MetricsPortBase is set.
const MetricsPortEnv = "BLASTFLEET_METRICS_PORT_BASE"

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
