package planning

import (
	"context"

	"github.com/blastfleet/blastfleet/internal/bio/seqidfilter"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// checkSeqidList refuses, before any partition starts, a sequence id list
// the database cannot serve: it has no sequence table, or the list keeps
// none of its sequences (or drops them all), where BLAST+ would search an
// empty database and print nothing.
func checkSeqidList(ctx context.Context, loc string, m *manifest.Manifest, s search.Spec) error {
	l := s.SeqidList
	if l == nil {
		return nil
	}
	if m.SeqStats == "" {
		return seqidfilter.NoTableError(l.Option(), m.Name)
	}
	list, err := l.Read(ctx)
	if err != nil {
		return err
	}
	rc, err := openCommon(ctx, loc, m, m.SeqStats, "the sequence table")
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = seqidfilter.Resolve(rc, list, m.Name)
	return err
}
