package planning

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/bio/queries"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Request is what a plan is made from. Locations are absolute paths or
// s3:// URLs, as partitions will read them.
type Request struct {
	Name              string
	Queries, Database string
	Search            search.Spec
	// Exactly one of ChunkLetters (about that many letters a chunk) and
	// ChunkQueries (that many queries a chunk) is set.
	ChunkLetters, ChunkQueries int
	Policy                     ledger.Policy
}

// Make reads the database's manifest and every query, and returns the
// plan (not yet written) with the manifest it names.
func Make(ctx context.Context, r Request) (*ledger.Plan, *manifest.Manifest, error) {
	db, m, err := readDatabase(ctx, r.Database)
	if err != nil {
		return nil, nil, err
	}
	p := r.Search.Program
	if err := m.CheckProgram(p, "--database "+r.Database); err != nil {
		return nil, nil, err
	}
	if err := readTaxidList(ctx, &r.Search); err != nil {
		return nil, nil, err
	}
	if err := checkTaxFilter(ctx, r.Database, m, r.Search.Options); err != nil {
		return nil, nil, err
	}
	if err := checkSeqidList(ctx, r.Database, m, r.Search); err != nil {
		return nil, nil, err
	}
	q, lengths, err := readQueries(ctx, r.Queries, p)
	if err != nil {
		return nil, nil, err
	}
	chunks, starts := Chunks(lengths, r.Search, r.ChunkLetters, r.ChunkQueries)
	return &ledger.Plan{
		Name:        r.Name,
		CreatedAt:   time.Now().UTC(),
		Queries:     q,
		Database:    db,
		Search:      r.Search,
		Chunks:      chunks,
		BatchStarts: starts,
		Policy:      r.Policy,
	}, m, nil
}

// readDatabase loads the database's current build's manifest and hashes
// its bytes: the campaign pins both.
func readDatabase(ctx context.Context, loc string) (ledger.Database, *manifest.Manifest, error) {
	if !strings.HasPrefix(loc, "s3://") {
		// objstore.OpenAs would create a missing directory.
		if _, err := os.Stat(loc); err != nil {
			return ledger.Database{}, nil, fmt.Errorf("--database: %w", err)
		}
	}
	st, err := objstore.OpenAs(ctx, objstore.RoleDatabase, loc)
	if err != nil {
		return ledger.Database{}, nil, fmt.Errorf("--database: %w", err)
	}
	m, sum, err := manifest.LoadCurrent(ctx, st)
	if errors.Is(err, objstore.ErrNotExist) {
		return ledger.Database{}, nil, fmt.Errorf("--database %s: no %s (is it a sharded database, from blastfleet db shard?): %w", loc, manifest.FileName, err)
	}
	if err != nil {
		return ledger.Database{}, nil, fmt.Errorf("--database: %w", err)
	}
	return ledger.Database{Location: loc, Name: m.Name, Type: string(m.Type), ManifestSHA256: sum, Manifest: m.Key()}, m, nil
}

// readQueries reads and validates every query as the engine will (the same
// reader), and measures the object as the engine checks it.
func readQueries(ctx context.Context, loc string, p blast.Program) (ledger.Queries, []int, error) {
	var lengths []int
	st, err := queries.Read(ctx, loc, p, func(rec *fasta.Record) error {
		lengths = append(lengths, len(rec.Seq))
		return nil
	})
	if err != nil {
		return ledger.Queries{Location: loc}, nil, err
	}
	return ledger.Queries{Location: loc, SHA256: st.SHA256, Size: st.Size, Count: st.Count, Letters: st.Letters}, lengths, nil
}
