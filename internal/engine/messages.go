package engine

import (
	"bytes"
	"encoding/gob"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/output"
)

// The protocol between master (M) and workers (W), in order:
//
//	M->W setup     the output target, or an error that ends the run
//	W->M hello     the shard groups the worker caches
//	M->W assign    a task: a query block (its FASTA) against a shard group
//	W->M done      per hit: query, E-value, bit score, subject ordinal, size
//	W->M failed    a task's error; the master aborts the run
//	M->W contribute  which of its lines a holder sends to a block's writer
//	M->W write     the writer's order: offset, part number, how many holders
//	W->W piece     a holder's lines for the writer, at relative offsets
//	W->M written   the writer wrote a block
//	M->W release   tasks whose lines are no longer needed
//	M->W stop      the end (or an abort); the worker answers with summary
type envelope struct {
	Setup      *setupMsg
	Hello      *helloMsg
	Assign     *assignMsg
	Done       *doneMsg
	Failed     *failedMsg
	Contribute *contributeMsg
	Write      *writeMsg
	Piece      *pieceMsg
	Written    *writtenMsg
	Release    *releaseMsg
	Stop       *stopMsg
	Summary    *RankSummary
}

type setupMsg struct {
	Error string
}

type helloMsg struct {
	Cached []int // shard group ids
}

type assignMsg struct {
	Task   int
	Block  int
	Group  int
	First  int // global index of the block's first query
	IDs    []string
	FASTA  []byte
	Shards []int
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
}

type doneMsg struct {
	Task         int
	Hits         []hitMeta
	Cached       []int
	BlastSeconds float64
}

type failedMsg struct {
	Task       int
	Error      string
	ExitCode   int
	Signal     string
	StderrTail string
}

type lineRef struct {
	Task, Index int
	RelOffset   int64
}

type contributeMsg struct {
	Unit   int
	Block  int
	Writer int
	Lines  []lineRef
}

type writeMsg struct {
	Unit    int
	Target  output.Target
	Block   int
	Offset  int64
	Part    int
	Size    int64
	Holders int
}

type segment struct {
	RelOffset int64
	Data      []byte
}

type pieceMsg struct {
	Unit     int
	Block    int
	Segments []segment
}

type writtenMsg struct {
	Unit    int
	Block   int
	Part    int
	ETag    string
	Size    int64
	Error   string
	Seconds float64
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
