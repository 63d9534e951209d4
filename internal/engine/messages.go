package engine

import (
	"bytes"
	"encoding/gob"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/engine/output"
)

// The protocol between master (M) and workers (W), in order:
//
//	M->W setup     the output target, or an error that ends the run
//	W->M hello     the shard groups the worker caches
//	M->W assign    a task: a query block (its FASTA) against a shard group,
//	               or (reports) the regeneration of a merged block's queries
//	W->M done      per hit: query, E-value, bit score, subject ordinal, size
//	               (a regeneration: per query, the size of its report piece)
//	               (master-writing: and every line's text)
//	W->M failed    a task's error; the master aborts the run
//	M->W contribute  which of its lines a holder sends to a write's writer
//	M->W write     the writer's order: offset, part number, how many holders
//	W->W piece     a holder's lines for the writer, at relative offsets
//	M->W coll      worker-collective: a block's domains and the worker's lines
//	W->W collPiece a worker's lines in the domains a peer writes (maybe none)
//	W->M written   the writer wrote its range of a block
//	M->W sync      --query-sync: a barrier after a block's writes, or its end
//	W->M arrive    the worker reached a barrier
//	M->W release   tasks whose lines are no longer needed
//	M->W stop      the end (or an abort); the worker answers with summary
//	W->M summary   the worker's account; Stopped when it was told to stop
//	               (SIGTERM) before the master's stop came
type envelope struct {
	Setup      *setupMsg
	Hello      *helloMsg
	Assign     *assignMsg
	Done       *doneMsg
	Failed     *failedMsg
	Contribute *contributeMsg
	Write      *writeMsg
	Piece      *pieceMsg
	Coll       *collMsg
	CollPiece  *collPieceMsg
	Written    *writtenMsg
	Sync       *syncMsg
	Arrive     *arriveMsg
	Release    *releaseMsg
	Stop       *stopMsg
	Summary    *RankSummary
	// Stopped goes with a Summary the master did not ask for: the worker
	// was told to stop (SIGTERM), so the partition is being stopped.
	Stopped bool
}

type setupMsg struct {
	Error string
}

type helloMsg struct {
	Cached []int  // ids of the shards the worker caches
	Host   string // the worker's machine: workers on one share its cores
}

type assignMsg struct {
	Task   int
	Block  int
	Group  int
	First  int // global index of the block's first query
	IDs    []string
	FASTA  []byte
	Lens   []int // simulate: the queries' lengths instead of their FASTA
	Shards []int
	// Groups is how many shard groups the database is searched in: the
	// master decides them (decompose.go), tasks carry their shards.
	Groups int
	// Batch is B, the letters of the block's BLAST+ batches (1: each
	// query alone).
	Batch int
	// Threads, when set, is BLAST's -num_threads instead of the worker's
	// own slots: the search's last task with its host's idle slots.
	Threads int
	// Regen, for a regeneration task: per query of the block, the kept
	// subjects, in the database's order; Total is the number of queries
	// of the whole search (a report's numbering and footer need it).
	Regen []regenQuery
	Total int
	// Ties: Regen is a tie-break search's (ties.go): per query, the
	// subjects whose order the printed values cannot tell.
	Ties bool
}

type regenQuery struct {
	Subjects []regenSubject
	// More: the query has, or may have, hits it did not keep
	// (regen.BatchQuery.More).
	More bool
}

type regenSubject struct {
	Shard   int32
	Ordinal int64
}

// hitMeta is what the master needs of a line: never its text.
type hitMeta struct {
	Query    int32 // index within the block
	Evalue   float64
	Bitscore float64
	Score    int64
	SLen     int64
	Ordinal  int64
	Size     int32
	Shard    int32 // the shard whose ids file knows the subject
}

type doneMsg struct {
	Task         int
	Hits         []hitMeta
	Cached       []int // ids of the shards the worker caches
	BlastSeconds float64
	Lines        [][]byte // master-writing: every hit's text, in Hits' order
}

type failedMsg struct {
	Task       int
	Error      string
	ExitCode   int
	Signal     string
	StderrTail string
	Config     bool // BLAST+ refuses the search's options: no retry helps
	// Site: this site's BLAST+, older than the one that built the
	// database, refuses the search: maybe this site's trouble alone, so
	// its partition stops and no chunk or campaign is marked.
	Site bool
	// Unavailable: the object store could not be reached (fetching a
	// shard): the store's trouble, not the chunk's.
	Unavailable bool
}

type lineRef struct {
	Task, Index int
	RelOffset   int64
}

// A block is written in one or more writes, numbered in their unit in
// output order; on S3 write n is part n+1.
type contributeMsg struct {
	Unit   int
	Write  int
	Writer int
	Lines  []lineRef
}

type writeMsg struct {
	Unit    int
	Target  output.Target
	Write   int
	Offset  int64
	Part    int
	Size    int64 // the bytes the writer gets from its holders
	Holders int
	// Own: the writer writes its own lines only, each run at Offset plus
	// its relative offset (worker-individual on a file).
	Own bool
}

type segment struct {
	RelOffset int64
	Data      []byte
}

type pieceMsg struct {
	Unit     int
	Write    int
	Segments []segment
}

// collMsg takes a worker into a block's collective write.
type collMsg struct {
	Unit    int
	ID      int // collectives are numbered in the run; all workers see them in order
	Target  output.Target
	Domains []domain
	Lines   []collLine // the lines this worker holds of the block
}

// domain is the range of a block one worker (aggregator) writes.
type domain struct {
	Writer int
	Write  int
	Offset int64
	Part   int
	Size   int64
}

type collLine struct {
	Task, Index int
	Domain      int
	RelOffset   int64 // in the domain
}

type collPieceMsg struct {
	ID     int
	Pieces []domainPiece
}

type domainPiece struct {
	Domain   int
	Segments []segment
}

type writtenMsg struct {
	Unit    int
	Write   int
	Part    int
	ETag    string
	Size    int64
	Error   string
	Seconds float64
	// Unavailable: the write failed because the object store could not
	// be reached, not because of the chunk.
	Unavailable bool
}

type syncMsg struct {
	ID      int
	Release bool
}

type arriveMsg struct {
	ID int
}

type releaseMsg struct {
	Tasks []int
}

type stopMsg struct {
	Abort string
}

func encode(e *envelope) []byte {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(e); err != nil {
		// Only our own types are encoded; failing here is a programming error.
		panic(fmt.Sprintf("engine: encoding message: %v", err))
	}
	return buf.Bytes()
}

func decode(data []byte) (*envelope, error) {
	var e envelope
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&e); err != nil {
		return nil, fmt.Errorf("decoding message: %w", err)
	}
	return &e, nil
}
