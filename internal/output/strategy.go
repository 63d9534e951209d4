package output

import "fmt"

// Block is a run of consecutive output bytes (one or more whole queries)
// that one rank writes at once, with how many bytes each rank holds of it.
type Block struct {
	Seq    int           // 0-based block number in output order
	Offset int64         // byte offset in the output
	Size   int64         // bytes
	Held   map[int]int64 // rank -> bytes of the block it holds
}

// Strategy decides which rank writes a block.
type Strategy interface {
	Name() string
	Writer(b *Block) int
}

// WorkerMerge appoints the worker holding most of the block's bytes, so the
// fewest bytes cross the network (ties: the lowest rank).
type WorkerMerge struct{}

func (WorkerMerge) Name() string { return "worker-merge" }

func (WorkerMerge) Writer(b *Block) int {
	best, bestBytes := -1, int64(-1)
	for r, n := range b.Held {
		if n > bestBytes || (n == bestBytes && r < best) {
			best, bestBytes = r, n
		}
	}
	return best
}

// ParseStrategy returns the named strategy.
func ParseStrategy(name string) (Strategy, error) {
	switch name {
	case "", "worker-merge":
		return WorkerMerge{}, nil
	case "worker-individual", "worker-collective", "master-writing":
		return nil, fmt.Errorf("--strategy %s is not implemented yet (worker-merge is)", name)
	}
	return nil, fmt.Errorf("--strategy %q: unknown (want worker-merge)", name)
}
