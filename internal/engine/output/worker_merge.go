package output

// WorkerMerge appoints as a block's writer the worker holding most of its
// bytes, so the fewest bytes cross the network; the others send it their
// lines and go on searching (the Blue Gene/P paper's strategy).
type WorkerMerge struct{}

func (WorkerMerge) Name() string { return "worker-merge" }
func (WorkerMerge) Flow() Flow   { return Gather }

// Writer is the worker holding most of the block (ties: the lowest rank).
func (WorkerMerge) Writer(b *Block) int { return mostBytes(b.Held, nil) }

func (s WorkerMerge) Plan(b *Block, _ Layout) []Write {
	return []Write{{Writer: s.Writer(b), From: 0, To: len(b.Lines)}}
}
