package engine

import (
	"context"
	"io"
	"path"
	"path/filepath"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastdoc"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// SAM (-outfmt 17) is regenerated as the reports are, but its header
// lists the queries of the whole output that have hits: the queries'
// pieces (their alignments) are written first, and the header, made from
// them, is put in front once they all are (output.Prepend; in a campaign,
// when the chunks' results are assembled).

// setupSAM prepares the header of a SAM output, whose @PG line records the
// equivalent blastn command line: the database by its name, the queries
// by their file's name, the search's -outfmt, -max_target_seqs, -evalue
// and options, the same for every rank, partition and retry.
func (m *master) setupSAM(ctx context.Context, dbName string) error {
	cfg := m.cfg
	if cfg.Format == nil || cfg.Format.Code != blast.SAM || cfg.Metadata {
		return nil
	}
	version, err := blast.Version(ctx, string(cfg.Program))
	if err != nil {
		return err
	}
	queries := filepath.Base(cfg.Queries)
	if output.IsObject(cfg.Queries) {
		queries = path.Base(cfg.Queries)
	}
	argv := blast.Invocation{Program: cfg.Program, DB: dbName, Query: queries, Format: cfg.Format, Report: true,
		MaxTargetSeqs: cfg.MaxTargetSeqs, Evalue: cfg.Evalue, Options: cfg.Options}.Argv()
	pg := blastdoc.SAMProgram(version, argv)
	lengths := make([]int, len(m.queries))
	for i, q := range m.queries {
		lengths[i] = q.Len
	}
	if cfg.Campaign != nil {
		// Whichever assembles the campaign's result (a partition, or
		// the operator's assembly Job, which runs no BLAST and reads no
		// queries) makes the header from these.
		return cfg.Campaign.Ledger.PutSAMInputs(ctx, ledger.SAMInputs{PG: string(pg), Lengths: lengths})
	}
	m.samHeader = func(body io.Reader) ([]byte, error) { return blastdoc.SAMHeader(body, lengths, pg) }
	return nil
}

// outputLocation is where a single search's output is written: a SAM
// body goes beside --output until its header is put in front.
func (m *master) outputLocation() string {
	if m.samHeader != nil {
		return output.BodyLocation(m.cfg.Output)
	}
	return m.cfg.Output
}
