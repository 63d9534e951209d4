package campaigncmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/plan/planning"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

type campaignPlanOptions struct {
	queries, database, output, name string
	chunkLetters, chunkQueries      int

	// The search, as blastfleet-engine's flags of the same names.
	req search.Request
	// searchJSON is the search whole, as a plan stores it: what the
	// operator's planning Job gives instead of the flags above.
	searchJSON string

	maxAttempts, maxAbandoned, maxStopped, leaseSeconds, renewSeconds, skewSeconds int

	// Which chunk flags were given (set from the command's flags).
	byLetters, byQueries bool
}

func newCampaignPlanCmd(root *cli.Options) *cobra.Command {
	o := &campaignPlanOptions{}
	cmd := &cobra.Command{
		Use:   "plan --queries FASTA --database DB (--program P | --search-json JSON) (--chunk-letters L | --chunk-queries Q) --output LOCATION",
		Short: "Validate the queries and the database, cut chunks and write a campaign's plan",
		Long: `Write a campaign's plan (plan.json) at --output: the queries object with its
SHA-256, size, count and letters; the database's manifest with its SHA-256;
the search (the same flags as blastfleet-engine, validated the same way, or
--search-json, the search whole as plan.json holds it); the
chunks, contiguous ranges of queries; and the lease and retry policy.

Every query is read and validated first (letters of the program's query
type, unique ids); errors name the file, the line and the record. The
database must be a sharded database (blastfleet db shard) of the type the
program searches. Chunks hold about --chunk-letters query letters each (a
long query gets a chunk of its own) or --chunk-queries queries each:
exactly one of the two.

Planning is idempotent: the same inputs give the same plan, and running the
command again is a no-op; a different plan at the same location is refused
with what differs. Locations are s3://bucket/prefix (AWS_* variables for
credentials, AWS_ENDPOINT_URL for MinIO) or local paths, recorded as
absolute paths. The partitions must be able to read the queries and the
database at the recorded locations.`,
		Example: `  blastfleet campaign plan --queries s3://in/q.fa.gz --database s3://dbs/nt \
      --program blastn --outfmt "6 qseqid sseqid evalue bitscore" \
      --chunk-letters 2000000 --output s3://work/campaigns/run1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.byLetters = cmd.Flags().Changed("chunk-letters")
			o.byQueries = cmd.Flags().Changed("chunk-queries")
			spec, err := o.validate()
			if err != nil {
				return err
			}
			return o.run(cmd.Context(), cmd, root, spec)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.queries, "queries", "", "query FASTA (plain or gzip): a path or s3://bucket/key (required)")
	f.StringVar(&o.database, "database", "", "sharded database: DIR or s3://bucket/prefix holding manifest.json (required)")
	f.StringVar(&o.output, "output", "", "the campaign's location: s3://bucket/campaigns/NAME or a directory (required)")
	f.StringVar(&o.name, "name", "", "campaign name: 1 to 63 letters, digits, '-' or '_' (default: the last element of --output)")
	f.IntVar(&o.chunkLetters, "chunk-letters", 0, "cut chunks of about this many query letters")
	f.IntVar(&o.chunkQueries, "chunk-queries", 0, "cut chunks of this many queries")
	o.req.AddFlags(f)
	f.IntVar(&o.maxAttempts, "max-attempts", ledger.DefaultMaxAttempts, "failed attempts per chunk before it is split in halves (a single query: recorded as failed)")
	f.IntVar(&o.maxAbandoned, "max-abandoned", ledger.DefaultMaxAbandoned, "attempts per chunk that may end without a word (partition died, lease expired) before it is split; stopped attempts count toward --max-stopped only")
	f.IntVar(&o.maxStopped, "max-stopped", 0, "attempts per chunk that may be stopped (SIGTERM) before it is split, to isolate a query whose own search gets its partition stopped every time (0: 20, or twice --max-abandoned)")
	f.IntVar(&o.leaseSeconds, "lease-seconds", ledger.DefaultLeaseSeconds, "how long a chunk's lease lasts unless renewed")
	f.IntVar(&o.renewSeconds, "renew-seconds", 0, "how often a partition renews its leases, under --lease-seconds (default a fifth of it, at least 2)")
	f.IntVar(&o.skewSeconds, "skew-seconds", ledger.DefaultSkewSeconds, "clock skew tolerated between machines: an expired lease is taken over only this much later")
	f.StringVar(&o.searchJSON, "search-json", "", `the search as JSON, as plan.json's "search" holds it, instead of --program and the other search flags (the operator's planning Job gives it so)`)
	for _, name := range []string{"queries", "database", "output"} {
		_ = cmd.MarkFlagRequired(name) // cannot fail: the flags exist
	}
	cmd.MarkFlagsOneRequired("program", "search-json")
	for _, name := range search.FlagNames {
		cmd.MarkFlagsMutuallyExclusive("search-json", name)
	}
	return cmd
}

// validate checks every flag before anything is read or written, with
// errors that name the flag to fix; the search is checked by package
// search, whose typed spec the plan stores, so equal searches give equal
// plans.
func (o *campaignPlanOptions) validate() (search.Spec, error) {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	for _, fl := range []struct{ name, value string }{{"queries", o.queries}, {"database", o.database}, {"output", o.output}} {
		if strings.TrimSpace(fl.value) == "" {
			add(fmt.Errorf("--%s must not be empty", fl.name))
		}
	}
	switch {
	case o.byLetters && o.byQueries:
		add(errors.New("--chunk-letters and --chunk-queries exclude each other: give one"))
	case !o.byLetters && !o.byQueries:
		add(errors.New("one of --chunk-letters or --chunk-queries is required"))
	case o.byLetters && o.chunkLetters < 1:
		add(fmt.Errorf("--chunk-letters must be ≥ 1, not %d", o.chunkLetters))
	case o.byQueries && o.chunkQueries < 1:
		add(fmt.Errorf("--chunk-queries must be ≥ 1, not %d", o.chunkQueries))
	}
	spec, err := o.search()
	if err != nil {
		add(err)
	}
	for _, fl := range []struct {
		name  string
		value int
	}{{"max-attempts", o.maxAttempts}, {"max-abandoned", o.maxAbandoned}, {"lease-seconds", o.leaseSeconds}, {"skew-seconds", o.skewSeconds}} {
		// The ledger reads 0 as "the default", so 0 cannot be asked for.
		if fl.value < 1 {
			add(fmt.Errorf("--%s must be ≥ 1, not %d", fl.name, fl.value))
		}
	}
	if o.maxStopped < 0 {
		add(fmt.Errorf("--max-stopped must be ≥ 0 (0: the default), not %d", o.maxStopped))
	}
	if o.renewSeconds < 0 {
		add(fmt.Errorf("--renew-seconds must be ≥ 1 (0: a fifth of --lease-seconds), not %d", o.renewSeconds))
	}
	if o.renewSeconds >= 1 && o.renewSeconds >= o.leaseSeconds {
		add(fmt.Errorf("--renew-seconds %d must be under --lease-seconds %d", o.renewSeconds, o.leaseSeconds))
	}
	return spec, errors.Join(errs...)
}

// search is the search given whole (--search-json) or as flags, checked
// either way as the operator checks a campaign's.
func (o *campaignPlanOptions) search() (search.Spec, error) {
	if o.searchJSON != "" {
		spec, err := search.ParseJSON([]byte(o.searchJSON))
		if err != nil {
			return spec, fmt.Errorf("--search-json: %w", err)
		}
		return spec, nil
	}
	return o.req.Parse()
}

func (o *campaignPlanOptions) run(ctx context.Context, cmd *cobra.Command, root *cli.Options, s search.Spec) error {
	log := root.Logger(cmd.ErrOrStderr())
	// BLAST's own word on the options, before any chunk runs: combinations
	// and program limits the value syntax cannot see.
	if _, err := exec.LookPath(string(s.Program)); err == nil {
		if err := blast.Preflight(ctx, s.Program, s.Options); err != nil {
			return fmt.Errorf("--blast-option: %w", err)
		}
	} else {
		log.Info("BLAST+ is not on PATH here: the search's options will first meet BLAST in the partitions", "program", s.Program)
	}
	queriesLoc, err := absLocation(o.queries)
	if err != nil {
		return fmt.Errorf("--queries: %w", err)
	}
	dbLoc, err := absLocation(o.database)
	if err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	outLoc, err := absLocation(o.output)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	name := o.name
	if name == "" {
		name = defaultCampaignName(outLoc)
	}
	if err := ledger.CheckName(name); err != nil {
		return fmt.Errorf("--name %w (without --name: the last element of --output)", err)
	}
	req := planning.Request{Name: name, Queries: queriesLoc, Database: dbLoc, Search: s,
		Policy: ledger.Policy{MaxAttempts: o.maxAttempts, MaxAbandoned: o.maxAbandoned, MaxStopped: o.maxStopped, LeaseSeconds: o.leaseSeconds,
			RenewSeconds: o.renewSeconds, SkewSeconds: o.skewSeconds}}
	if o.byLetters {
		req.ChunkLetters = o.chunkLetters
	} else {
		req.ChunkQueries = o.chunkQueries
	}
	log.V(1).Info("reading the database manifest and validating the queries", "database", dbLoc, "queries", queriesLoc)
	plan, m, err := planning.Make(ctx, req)
	if err != nil {
		return err
	}
	created := plan.CreatedAt
	st, err := objstore.Open(ctx, outLoc)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if err := ledger.WritePlan(ctx, st, plan); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	// WritePlan hands back the stored plan: an older CreatedAt means the
	// same plan was there already.
	if plan.CreatedAt.Equal(created) {
		fmt.Fprintf(w, "campaign %s: plan written to %s\n", plan.Name, st.URL(ledger.PlanKey))
	} else {
		fmt.Fprintf(w, "campaign %s: plan already written at %s (%s), nothing to do\n",
			plan.Name, st.URL(ledger.PlanKey), plan.CreatedAt.Local().Format(time.DateTime))
	}
	printPlanSummary(w, plan, m, outLoc, o.byLetters, o.chunkLetters, o.chunkQueries)
	return nil
}

func printPlanSummary(w io.Writer, p *ledger.Plan, m *manifest.Manifest, loc string, byLetters bool, letters, queries int) {
	q := p.Queries
	fmt.Fprintf(w, "  queries   %d (%s letters, %s) from %s, sha256 %.12s…\n",
		q.Count, humanize.Comma(q.Letters), humanize.IBytes(uint64(q.Size)), q.Location, q.SHA256)
	fmt.Fprintf(w, "  database  %s (%s, %d shards, %s sequences) at %s\n",
		m.Name, m.Type, len(m.Shards), humanize.Comma(m.Sequences), p.Database.Location)
	s := p.Search.Request()
	line := fmt.Sprintf("%s --outfmt %q --max-target-seqs %d", s.Program, s.Outfmt, s.MaxTargetSeqs)
	if s.Evalue != 0 {
		line += fmt.Sprintf(" --evalue %g", s.Evalue)
	}
	for _, opt := range s.Options {
		line += " --blast-option=" + opt
	}
	line += " --top-hits " + s.TopHits
	if s.Transfer == search.TransferMetadata {
		line += " --transfer metadata"
	}
	fmt.Fprintf(w, "  search    %s\n", line)
	if p.Search.Batching == blast.BatchingAlone {
		fmt.Fprintf(w, "  batches   each query alone (--batching alone)\n")
	} else {
		fmt.Fprintf(w, "  batches   %d BLAST+ batches of %d letters (BATCH_SIZE=%d)\n", len(p.BatchStarts)+1, p.Search.BatchLetters(), p.Search.BatchLetters())
	}
	var most, least int64 = 0, math.MaxInt64
	for _, c := range p.Chunks {
		most, least = max(most, c.Letters), min(least, c.Letters)
	}
	how := fmt.Sprintf("of up to %d queries", queries)
	if byLetters {
		how = fmt.Sprintf("of about %s letters", humanize.Comma(int64(letters)))
	}
	fmt.Fprintf(w, "  chunks    %d %s (%s to %s letters)\n", len(p.Chunks), how, humanize.Comma(least), humanize.Comma(most))
	pol := p.Policy.WithDefaults()
	fmt.Fprintf(w, "  policy    %d failed, %d abandoned or %d stopped attempts per chunk before it is split, leases of %d s renewed every %d s, clock skew %d s\n",
		pol.MaxAttempts, pol.MaxAbandoned, pol.MaxStopped, pol.LeaseSeconds, pol.RenewSeconds, pol.SkewSeconds)
	fmt.Fprintf(w, "run partitions (any number, anywhere, each with K ranks):\n")
	fmt.Fprintf(w, "  mpirun -np K blastfleet-engine --campaign %s [--partition-id ID]\n", loc)
	fmt.Fprintf(w, "follow and collect:\n")
	fmt.Fprintf(w, "  blastfleet campaign status %s --watch\n", loc)
	fmt.Fprintf(w, "  blastfleet campaign results %s --output-file FILE\n", loc)
}
