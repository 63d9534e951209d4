package search

import (
	"github.com/spf13/pflag"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

// FlagNames are the flags AddFlags defines.
var FlagNames = []string{"program", "outfmt", "max-target-seqs", "evalue", "blast-option", "batching", "transfer", "top-hits"}

// AddFlags defines the search's flags on fs, into r, with their
// defaults: the one definition of blastfleet-engine's and campaign
// plan's, which Parse then checks.
func (r *Request) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&r.Program, "program", "", blast.ProgramList())
	fs.StringVar(&r.Outfmt, "outfmt", "6", `output format: tabular with columns, e.g. "6 qseqid sseqid evalue bitscore" (tab-separated) or "10 std stitle" (CSV), or a report: 0, 5, 7, 11, 15, 16, 17 (SAM, blastn only)`)
	fs.IntVar(&r.MaxTargetSeqs, "max-target-seqs", blast.DefaultMaxTargetSeqs, "keep at most this many subjects per query, applied globally after the merge")
	fs.Float64Var(&r.Evalue, "evalue", 0, "E-value cut-off (default: BLAST's, 10)")
	fs.StringArrayVar(&r.Options, "blast-option", nil, "extra BLAST option from the allowlist, e.g. --blast-option=-word_size=11 (repeatable)")
	fs.StringVar(&r.Batching, "batching", string(blast.BatchingBLAST), "how queries are cut into BLAST+ batches: blast (BLAST+'s own, as one BLAST+ run of the whole file prints; blastn runs with a fixed BATCH_SIZE per task) or alone (each query searched alone, independent of its neighbours: one database scan per query, docs/concepts.md)")
	fs.StringVar(&r.Transfer, "transfer", TransferFull, "what a campaign's partitions commit: full (the output) or metadata (per query the ids of its kept subjects; blastfleet campaign results regenerates the output at home, docs/concepts.md)")
	fs.StringVar(&r.TopHits, "top-hits", "auto", "how shard groups are searched under --max-target-seqs: auto (with N as BLAST when one group holds the database, else overfetch), exact (untruncated: the exact global top N), overfetch[=F] (F x N, default 4)")
}
