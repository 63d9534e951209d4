package output

// WorkerCollective writes each block in a collective call all workers take
// part in, as MPI-IO's two-phase collective write: the block is cut into
// one file domain per worker (at line boundaries; on S3 each at least
// 5 MiB, so fewer), domain i is written by worker i+1 (the aggregator),
// and every worker sends each aggregator its lines in that domain. No
// worker leaves the call before all have entered it: its cost is the
// synchronisation, which the engine reports in the sync phase.
type WorkerCollective struct{}

func (WorkerCollective) Name() string { return "worker-collective" }
func (WorkerCollective) Flow() Flow   { return Collective }

func (WorkerCollective) Plan(b *Block, l Layout) []Write {
	spans := split(b.Lines, max(l.Workers, 1), l.MinPart)
	ws := make([]Write, len(spans))
	for i, s := range spans {
		ws[i] = Write{Writer: i + 1, From: s.from, To: s.to}
	}
	return ws
}
