package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/bio/queries"
	"github.com/blastfleet/blastfleet/internal/engine/regen"
	"github.com/blastfleet/blastfleet/internal/storage/cache"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// RegenerateResults is StreamResults for a campaign whose partitions
// committed metadata (--transfer metadata): the committed lines are read
// in query order and each query's output is regenerated here with BLAST+
// from the database's shards, fetched into cacheDir ("": a temporary
// directory, removed after). progress shows the queries regenerated.
func RegenerateResults(ctx context.Context, stdout io.Writer, l *ledger.Ledger, output string, r ResultsOptions, progress io.Writer) (int64, []ledger.Range, error) {
	p := l.Plan()
	open := r.Open
	if open == nil {
		open = objstore.OpenAs
	}
	cacheDir := r.CacheDir
	dbStore, err := open(ctx, objstore.RoleDatabase, p.Database.Location)
	if err != nil {
		return 0, nil, fmt.Errorf("the campaign's database: %w", err)
	}
	db, _, err := manifest.LoadPinned(ctx, dbStore, p.Database.Manifest, p.Database.ManifestSHA256)
	if err != nil {
		return 0, nil, fmt.Errorf("the campaign's database: %w", err)
	}
	files, err := db.Files(dbStore)
	if err != nil {
		return 0, nil, err
	}
	var recs [][]byte
	qdir, qkey := path.Split(strings.TrimPrefix(p.Queries.Location, "s3://"))
	if !strings.HasPrefix(p.Queries.Location, "s3://") {
		qdir, qkey = filepath.Dir(p.Queries.Location), filepath.Base(p.Queries.Location)
	} else {
		qdir = "s3://" + strings.TrimSuffix(qdir, "/")
	}
	qst, err := open(ctx, objstore.RoleQueries, qdir)
	if err != nil {
		return 0, nil, fmt.Errorf("the campaign's queries: %w", err)
	}
	if _, err := queries.ReadFrom(ctx, qst, qkey, p.Queries.Location, p.Search.Program, func(r *fasta.Record) error {
		var b bytes.Buffer
		if err := fasta.Write(&b, r); err != nil {
			return err
		}
		recs = append(recs, b.Bytes())
		return nil
	}); err != nil {
		return 0, nil, fmt.Errorf("the campaign's queries: %w", err)
	}
	if cacheDir == "" {
		if cacheDir, err = os.MkdirTemp("", "blastfleet-regenerate-"); err != nil {
			return 0, nil, err
		}
		defer os.RemoveAll(cacheDir)
	}
	c, err := cache.New(cacheDir, 0, files, db)
	if err != nil {
		return 0, nil, fmt.Errorf("shard cache: %w", err)
	}
	s := p.Search
	bar := NewBar(orDiscard(progress), "regenerating the results", int64(len(recs)), Items)
	defer bar.Finish()
	regenerated := 0
	home := &regen.Home{DB: db, Cache: c, Total: len(recs),
		Search: regen.Search{Program: s.Program, Format: s.Format, MaxTargetSeqs: s.MaxTargetSeqs, Evalue: s.Evalue, Options: s.Options, Threads: 1, BatchLetters: s.BatchLetters(),
			TaxDBDir: taxDBDir(db, c)},
		Query: func(i int) ([]byte, error) {
			if i < 1 || i > len(recs) {
				return nil, fmt.Errorf("query %d: the campaign has %d", i, len(recs))
			}
			return recs[i-1], nil
		},
		Progress: func(done int) {
			bar.Add(int64(done - regenerated))
			regenerated = done
		}}
	n, err := writeOutput(stdout, output, func(w io.Writer) error {
		pr, pw := io.Pipe()
		streamed := make(chan error, 1)
		go func() {
			err := l.ReadResults(ctx, pw, r.Want)
			pw.CloseWithError(err)
			streamed <- err
		}()
		_, herr := home.Write(ctx, pr, w)
		pr.CloseWithError(errors.New("regeneration stopped"))
		serr := <-streamed
		if serr != nil {
			return serr
		}
		return herr
	})
	var ie *ledger.IncompleteError
	if errors.As(err, &ie) && err == error(ie) {
		return n, ie.Missing, nil
	}
	return n, nil, err
}

// ResultsOptions are the flags of the results commands for campaigns
// that transfer metadata.
type ResultsOptions struct {
	Metadata bool   // write the committed metadata as it is
	CacheDir string // where regeneration keeps the shards
	// Open reaches the database and the queries (nil: objstore.OpenAs,
	// each store's variables, as the engine reads them).
	Open func(ctx context.Context, role objstore.Role, location string) (objstore.Store, error)
	// Want is the whole result's record outside the store (a
	// SearchCampaign's status); nil: the store's own assembled.json.
	Want *ledger.Expected
}

// AddFlags adds --metadata and --cache-dir.
func (r *ResultsOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&r.Metadata, "metadata", false, "for a campaign with spec.transfer metadata: write the committed metadata (per query the ordinals of its kept subjects) instead of regenerating the output")
	fs.StringVar(&r.CacheDir, "cache-dir", "", "for a campaign with spec.transfer metadata: where regeneration keeps the database's shards (default: a temporary directory, removed after)")
}

// WriteResults streams a complete campaign's results, or regenerates them
// if its partitions committed metadata (unless r.Metadata).
func WriteResults(ctx context.Context, stdout io.Writer, l *ledger.Ledger, output string, r ResultsOptions, errw io.Writer) (int64, []ledger.Range, error) {
	if l.Plan() != nil && l.Plan().Search.Metadata && !r.Metadata {
		Hint(errw, "the campaign's partitions committed metadata: regenerating its output here with BLAST+ (--metadata writes the metadata)")
		return RegenerateResults(ctx, stdout, l, output, r, errw)
	}
	return StreamResults(ctx, stdout, l, output, r.Want, errw)
}

// taxDBDir is where the cache keeps the database's taxonomy files, if it
// ships them.
func taxDBDir(db *manifest.Manifest, c *cache.Cache) string {
	if db.HasTaxDB() {
		return c.Dir()
	}
	return ""
}
