package blast

import (
	"fmt"
	"strconv"
)

// BLAST+'s command-line programs read a query file in batches and search
// each batch as one concatenated query, so a query's hits can depend on
// the other queries of its batch (docs/concepts.md). A batch is fixed by
// the query lengths alone (CBlastInput::GetNextSeqBatch in BLAST+'s
// blastinput library): whole queries are added while the batch holds fewer
// than B letters, so the query that reaches B closes its batch. B comes
// from GetQueryBatchSize, which returns the BATCH_SIZE environment
// variable when it is set, else a fixed size per program. blastn is the
// exception: without BATCH_SIZE its application adapts each next batch's
// size to the previous batch's hits (CBatchSizeMixer, blastn_app.cpp),
// and with BATCH_SIZE set it sets the size once and never calls the mixer.
// So every search here runs with BATCH_SIZE set: to BLAST+'s own size for
// the programs whose size is fixed, and to a size per blastn task chosen
// by measurement (docs/benchmarks.md#blastn-batch-size).

// BatchEnv is the environment variable BLAST+ reads its batch size from.
const BatchEnv = "BATCH_SIZE"

// Alone is the batch size that makes every query a batch of its own: the
// output of one process per query, at one database scan per query.
const Alone = 1

// Batching is how a search cuts its queries into BLAST+ batches.
type Batching string

const (
	// BatchingBLAST searches the query file in BLAST+'s own batches (the
	// default): the output is BLAST+'s for the whole file.
	BatchingBLAST Batching = "blast"
	// BatchingAlone searches each query alone: a query's answer does not
	// depend on its neighbours, at one database scan per query.
	BatchingAlone Batching = "alone"
)

// Batchings lists the values of --batching, the default first.
var Batchings = []Batching{BatchingBLAST, BatchingAlone}

// ParseBatching reads --batching; empty is the default.
func ParseBatching(s string) (Batching, error) {
	switch Batching(s) {
	case "", BatchingBLAST:
		return BatchingBLAST, nil
	case BatchingAlone:
		return BatchingAlone, nil
	}
	return "", fmt.Errorf("--batching %q: want %s (BLAST+'s own query batches, as one BLAST+ run of the file) or %s (each query searched alone)", s, BatchingBLAST, BatchingAlone)
}

// blastnBatchLetters are B for blastn's tasks, where BLAST+'s own size
// adapts to hits. Each is the smallest size whose one-thread CPU time
// stayed within about 2% of the best, measured with 300-letter fragments
// against 44 Mb of generated genomes (make bench-batchsize,
// docs/benchmarks.md): a batch scans the database once (0.32 s for
// megablast, 0.88 s for dc-megablast, 0.08 s for blastn there), so
// smaller batches cost scans, larger ones leave the engine fewer blocks.
// Plain blastn's adaptive batches cost 6-13% more than these.
var blastnBatchLetters = map[string]int{
	"megablast":    2000000,
	"dc-megablast": 2000000,
	"blastn":       50000,
	"blastn-short": 50000,
}

// defaultBatchLetters are BLAST+ 2.12's own sizes (GetQueryBatchSize).
// rpsblast's and rpstblastn's were measured: 100-letter queries cut with
// BATCH_SIZE 9901 and 10000 print what plain runs print, 10001 does not
// (the gapped K of the reports' footers follows the batch), so B is in
// (9900, 10000], GetQueryBatchSize's default of 10000.
var defaultBatchLetters = map[Program]int{
	Blastp:     10000,
	Blastx:     10002,
	Tblastx:    10002,
	Tblastn:    20000,
	Rpsblast:   10000,
	Rpstblastn: 10000,
}

// BatchLetters is B for a search: how many letters BLAST+ reads into a
// batch for program p with options opts (its -task), under batching b.
func BatchLetters(p Program, opts []Option, b Batching) int {
	if b == BatchingAlone || p == Psiblast {
		// psiblast reads and searches one query at a time (its output
		// is the same under any BATCH_SIZE, measured with 1 and 3
		// iterations): each query is its own batch.
		return Alone
	}
	if p == Blastn {
		if n, ok := blastnBatchLetters[BlastnTask(opts)]; ok {
			return n
		}
		return blastnBatchLetters["blastn"]
	}
	if n, ok := defaultBatchLetters[p]; ok {
		return n
	}
	return 10000
}

// BlastnTask is blastn's -task among opts: the last given, else BLAST+'s
// default, megablast.
func BlastnTask(opts []Option) string {
	task := "megablast"
	for _, o := range opts {
		if o.Name == "task" {
			task = o.Value
		}
	}
	return task
}

// BatchEnvValue is the BATCH_SIZE setting for batches of b letters.
func BatchEnvValue(b int) string { return BatchEnv + "=" + strconv.Itoa(b) }

// BatchEnds cuts queries of the given lengths into BLAST+'s batches of b
// letters and returns each batch's end (exclusive index), in order: the
// last is len(lengths).
func BatchEnds(lengths []int, b int) []int {
	var ends []int
	read := 0
	for i, n := range lengths {
		read += n
		if read >= b {
			ends = append(ends, i+1)
			read = 0
		}
	}
	if len(lengths) > 0 && (len(ends) == 0 || ends[len(ends)-1] != len(lengths)) {
		ends = append(ends, len(lengths))
	}
	return ends
}

// AloneEnv is the BATCH_SIZE setting that searches each query alone.
const AloneEnv = BatchEnv + "=1"
