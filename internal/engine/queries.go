package engine

import (
	"context"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/bio/queries"
)

// query is one validated query sequence. A simulated query set
// (--sim-queries) has lengths but no letters: Seq is nil.
type query struct {
	ID      string // first word of the header
	Defline string
	Seq     []byte
	Len     int // letters
}

// loadQueries reads and validates every query before any compute starts,
// and returns the object's SHA-256 (a campaign checks it against its plan).
func loadQueries(ctx context.Context, location string, p blast.Program) ([]query, int64, string, error) {
	var qs []query
	st, err := queries.Read(ctx, location, p, func(rec *fasta.Record) error {
		qs = append(qs, query{ID: rec.ID, Defline: rec.Defline, Seq: rec.Seq, Len: len(rec.Seq)})
		return nil
	})
	if err != nil {
		return nil, 0, "", err
	}
	return qs, st.Letters, st.SHA256, nil
}

// blocker cuts the query list into blocks on demand. A block is a run of
// whole BLAST+ batches (ends), so BLAST searches each batch exactly as one
// run of the whole query file does. With a fixed size each block holds
// about that many letters; otherwise blocks are guided: each takes a share
// of what is left, so early blocks are large (few BLAST start-ups) and the
// last ones small (workers finish together). A unit that more work follows
// (a campaign chunk that is not among the last) needs no small blocks,
// since the next unit's blocks keep the workers busy: it is cut into one
// block per worker.
type blocker struct {
	queries []query
	ends    []int // batch ends, ascending, the last len(queries)
	next    int   // the next query
	batch   int   // the next batch
	left    int64
	fixed   int64 // letters per block; 0: guided
	workers int
	// floor is the smallest guided block the tasks' fixed cost allows
	// (overhead.go), kept below a worker's share of what is left.
	floor int64
	// stop is a query no block crosses (where a mixed decomposition's
	// tail starts); 0 or past the end: none.
	stop int
}

// minGuidedLetters keeps guided blocks large enough that BLAST's per-call
// cost (about 0.06 s) stays small against the search, and small enough
// that the last blocks leave little idle time (measured on plast-example:
// a floor of 1500 letters left a worker idle 0.4-0.7 s at the end).
const minGuidedLetters = 600

// newBlocker cuts queries, in BLAST+ batches of batchLetters, into blocks
// of fixed letters (0: guided, as for workers workers, or with more
// following, one block per worker).
func newBlocker(queries []query, batchLetters, fixed, workers int, more bool) *blocker {
	b := &blocker{queries: queries, ends: batchEnds(queries, batchLetters), left: sumLetters(queries), fixed: int64(fixed), workers: workers}
	if more && fixed <= 0 {
		b.fixed = max((b.left+int64(workers)-1)/int64(workers), minGuidedLetters)
	}
	return b
}

// batchEnds are the ends of qs's BLAST+ batches of b letters.
func batchEnds(qs []query, b int) []int {
	lengths := make([]int, len(qs))
	for i, q := range qs {
		lengths[i] = q.Len
	}
	return blast.BatchEnds(lengths, b)
}

func sumLetters(qs []query) int64 {
	var n int64
	for _, q := range qs {
		n += int64(q.Len)
	}
	return n
}

func (b *blocker) done() bool { return b.next >= len(b.queries) }

// take returns the next block as [first, end): whole batches, at least one.
func (b *blocker) take() (first, end int) {
	target := b.fixed
	if target <= 0 {
		target = max(b.left/int64(2*b.workers), minGuidedLetters, min(b.floor, b.left/int64(b.workers)))
	}
	first, end = b.next, b.next
	var n int64
	for b.batch < len(b.ends) {
		e := b.ends[b.batch]
		letters := sumLetters(b.queries[end:e])
		if end > first && (n+letters > target || end == b.stop) {
			break
		}
		n += letters
		end = e
		b.batch++
	}
	b.next, b.left = end, b.left-n
	return first, end
}

// lptBatchesPerWorker: a unit of at most this many batches per worker,
// cut by guided blocks, is cut into one block per batch at once and
// handed out largest first (master.addBatches). Guided blocks shrink
// towards the end by themselves; batches this coarse cannot.
const lptBatchesPerWorker = 4

// coarse: the rest is few enough whole batches to be handed out largest
// first (guided blocks only: fixed ones, as a campaign chunk followed by
// others, keep query order).
func (b *blocker) coarse() bool {
	return b.fixed == 0 && !b.done() && len(b.ends)-b.batch <= lptBatchesPerWorker*b.workers
}

// takeBatch returns the next batch as [first, end).
func (b *blocker) takeBatch() (first, end int) {
	first, end = b.next, b.ends[b.batch]
	b.batch++
	b.next, b.left = end, b.left-sumLetters(b.queries[first:end])
	return first, end
}

// blockFASTA renders queries [first, end) for BLAST's -query.
func blockFASTA(qs []query) []byte {
	n := 0
	for _, q := range qs {
		n += len(q.Defline) + 2 + len(q.Seq) + len(q.Seq)/80 + 1
	}
	buf := make([]byte, 0, n) // sized once: a block can be megabytes
	for _, q := range qs {
		buf = append(buf, '>')
		buf = append(buf, q.Defline...)
		buf = append(buf, '\n')
		for i := 0; i < len(q.Seq); i += 80 {
			buf = append(buf, q.Seq[i:min(i+80, len(q.Seq))]...)
			buf = append(buf, '\n')
		}
	}
	return buf
}
