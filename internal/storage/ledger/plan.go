package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// PlanKey is the plan's key under the campaign prefix.
const PlanKey = "plan.json"

// SchemaVersion changes when the ledger layout changes incompatibly.
const SchemaVersion = 1

// Plan is plan.json: everything that decides a campaign's result. Two
// plans are the same campaign when they are equal apart from CreatedAt.
type Plan struct {
	SchemaVersion int         `json:"schemaVersion"`
	Name          string      `json:"name"`
	CreatedAt     time.Time   `json:"createdAt,omitzero"`
	Queries       Queries     `json:"queries"`
	Database      Database    `json:"database"`
	Search        search.Spec `json:"search"` // how each chunk is searched
	Chunks        []Chunk     `json:"chunks"`
	// BatchStarts are the queries that start a BLAST+ batch, ascending,
	// the first query's 0 left out: chunks start and end on them, and a
	// chunk split to isolate a failing query is split on the one nearest
	// its middle while it holds more than one batch. Empty: every query is
	// a batch of its own (the search's batching is alone).
	BatchStarts []int  `json:"batchStarts,omitempty"`
	Policy      Policy `json:"policy"`
}

// halves is the deterministic split of r, so partitions deciding at once
// agree: on the batch start nearest r's middle, or, within one batch, in
// the middle (its halves are then searched each query alone).
func (p *Plan) halves(r Range) [2]Range {
	mid := r.First + r.Len()/2
	if p != nil && len(p.BatchStarts) > 0 {
		i, _ := slices.BinarySearch(p.BatchStarts, r.First+1)
		best := -1
		for ; i < len(p.BatchStarts) && p.BatchStarts[i] < r.End; i++ {
			if s := p.BatchStarts[i]; best < 0 || abs(s-mid) < abs(best-mid) {
				best = s
			}
		}
		if best > 0 {
			mid = best
		}
	}
	return [2]Range{{r.First, mid}, {mid, r.End}}
}

func abs(n int) int { return max(n, -n) }

// wholeBatches says whether r is a run of whole BLAST+ batches (always,
// when each query is its own batch).
func (p *Plan) wholeBatches(r Range) bool {
	if p == nil || len(p.BatchStarts) == 0 {
		return true
	}
	last := p.Chunks[len(p.Chunks)-1].End
	starts := func(q int) bool {
		_, found := slices.BinarySearch(p.BatchStarts, q)
		return q == 0 || q == last || found
	}
	return starts(r.First) && starts(r.End)
}

// BatchStartsOf lists where BLAST+ batches start given their ends
// (blast.BatchEnds): every end but the last.
func BatchStartsOf(ends []int) []int {
	if len(ends) < 2 {
		return nil
	}
	return slices.Clone(ends[:len(ends)-1])
}

// Queries identifies the queries object.
type Queries struct {
	Location string `json:"location"`
	SHA256   string `json:"sha256"`
	Size     int64  `json:"size"`
	Count    int    `json:"count"`
	Letters  int64  `json:"letters"`
}

// Database identifies the sharded database by its manifest.
type Database struct {
	Location       string `json:"location"`
	Name           string `json:"name"`
	Type           string `json:"type"`
	ManifestSHA256 string `json:"manifestSha256"`
	// Manifest is the key, under Location, of the manifest the campaign
	// pins: its build's own copy (builds/<id>/manifest.json), which no
	// later build overwrites. Empty: manifest.json (unversioned databases).
	Manifest string `json:"manifest,omitempty"`
}

// Chunk is one top-level chunk of the plan: queries [First, End).
type Chunk struct {
	First   int   `json:"first"`
	End     int   `json:"end"`
	Letters int64 `json:"letters"`
}

// Range is the chunk's query range, its identity in the ledger.
func (c Chunk) Range() Range { return Range{c.First, c.End} }

// Policy is how leases and retries behave.
type Policy struct {
	// MaxAttempts is how many attempts of a chunk may fail (BLAST exits
	// non-zero or is killed, or the engine reports an error) before it is
	// split in halves, or a single query recorded failed.
	MaxAttempts int `json:"maxAttempts"`
	// MaxAbandoned is the same for attempts that end without a word: their
	// holder died or lost touch and the lease expired. Larger, since that
	// is most often the machine's fault, not the chunk's.
	MaxAbandoned int `json:"maxAbandoned,omitempty"`
	// MaxStopped is the same for stopped attempts (SIGTERM: suspend,
	// scale-down, preemption, but also an eviction for the chunk's own
	// disk use or a site's time limit shorter than the chunk). Far larger
	// again: a stop is the search's own fault only when it comes back
	// every time, and then splitting isolates the query that causes it.
	MaxStopped   int `json:"maxStopped,omitempty"`
	LeaseSeconds int `json:"leaseSeconds"`
	RenewSeconds int `json:"renewSeconds"`
	SkewSeconds  int `json:"skewSeconds"`
}

// Policy defaults.
const (
	DefaultMaxAttempts  = 3
	DefaultMaxAbandoned = 10
	DefaultMaxStopped   = 20
	DefaultLeaseSeconds = 300
	DefaultRenewSeconds = DefaultLeaseSeconds / 5
	DefaultSkewSeconds  = 30
)

// RenewSecondsFor is how often a partition renews leases of lease seconds
// unless told otherwise: five times per lease, at least 2 seconds apart,
// so a lease survives four lost renewals.
func RenewSecondsFor(lease int) int { return max(2, lease/5) }

// WithDefaults is p with every zero field at its default, as the ledger
// reads it.
func (p Policy) WithDefaults() Policy { return p.withDefaults() }

func (p Policy) withDefaults() Policy {
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.MaxAbandoned == 0 {
		p.MaxAbandoned = max(DefaultMaxAbandoned, p.MaxAttempts)
	}
	if p.MaxStopped == 0 {
		p.MaxStopped = max(DefaultMaxStopped, 2*p.MaxAbandoned)
	}
	if p.LeaseSeconds == 0 {
		p.LeaseSeconds = DefaultLeaseSeconds
	}
	if p.RenewSeconds == 0 {
		p.RenewSeconds = RenewSecondsFor(p.LeaseSeconds)
	}
	if p.SkewSeconds == 0 {
		p.SkewSeconds = DefaultSkewSeconds
	}
	return p
}

// Lease, Renew and Skew are the policy's durations.
func (p Policy) Lease() time.Duration { return time.Duration(p.LeaseSeconds) * time.Second }
func (p Policy) Renew() time.Duration { return time.Duration(p.RenewSeconds) * time.Second }
func (p Policy) Skew() time.Duration  { return time.Duration(p.SkewSeconds) * time.Second }

// validate checks what the ledger relies on: chunks contiguous from 0 in
// query order and a policy that renews well inside the lease.
func (p *Plan) validate() error {
	// The plan comes from a store every partition and site may write: its
	// strings reach scripts, job names, paths and logs, so they are held
	// to what those can carry safely.
	if err := CheckName(p.Name); err != nil {
		return fmt.Errorf("plan name: %w", err)
	}
	if p.Database.Name != "" {
		if err := manifest.CheckName(p.Database.Name); err != nil {
			return fmt.Errorf("plan database.name %w", err)
		}
	}
	if m := p.Database.Manifest; m != "" && !pinnedManifestRe.MatchString(m) {
		return fmt.Errorf("plan database.manifest %q: want builds/<id>/manifest.json", m)
	}
	for _, l := range []struct{ field, loc string }{{"queries.location", p.Queries.Location}, {"database.location", p.Database.Location}} {
		if err := checkLocation(l.loc); err != nil {
			return fmt.Errorf("plan %s: %w", l.field, err)
		}
	}
	if len(p.Chunks) == 0 {
		return errors.New("plan has no chunks")
	}
	next := 0
	for i, c := range p.Chunks {
		if c.First != next || c.End <= c.First {
			return fmt.Errorf("plan chunk %d is [%d,%d), want it to start at %d and be non-empty", i, c.First, c.End, next)
		}
		next = c.End
	}
	for i, c := range p.Chunks {
		if _, found := slices.BinarySearch(p.BatchStarts, c.First); i > 0 && len(p.BatchStarts) > 0 && !found {
			return fmt.Errorf("plan chunk %d starts at query %d, inside a BLAST+ batch", i, c.First)
		}
	}
	if p.Queries.Count != 0 && next != p.Queries.Count {
		return fmt.Errorf("plan chunks cover %d queries, queries.count is %d", next, p.Queries.Count)
	}
	pol := p.Policy
	if pol.MaxAttempts < 1 || pol.MaxAbandoned < 0 || pol.MaxStopped < 0 || pol.LeaseSeconds < 1 || pol.RenewSeconds < 1 || pol.SkewSeconds < 0 {
		return fmt.Errorf("plan policy %+v: values must be positive", pol)
	}
	if pol.RenewSeconds >= pol.LeaseSeconds {
		return fmt.Errorf("plan policy: renewSeconds %d must be under leaseSeconds %d", pol.RenewSeconds, pol.LeaseSeconds)
	}
	return nil
}

// nameRe is a campaign's name: what a Kubernetes label, a Slurm job name
// and a shell word all carry unchanged (Kubernetes campaigns' names, DNS
// labels, are a subset). No '.': Slurm job names use it as a separator.
var nameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$`)

// pinnedManifestRe is the key of a build's own manifest.
var pinnedManifestRe = regexp.MustCompile(`^builds/[0-9a-z][0-9a-z-]*/manifest\.json$`)

// CheckName says whether name may name a campaign.
func CheckName(name string) error {
	if !nameRe.MatchString(name) {
		return fmt.Errorf("%q: want 1 to 63 letters, digits, '-' or '_', starting and ending with a letter or digit", name)
	}
	return nil
}

// checkLocation accepts s3://bucket/prefix or an absolute path, without
// control characters.
func checkLocation(loc string) error {
	for _, r := range loc {
		if unicode.IsControl(r) {
			return fmt.Errorf("%q holds a control character", loc)
		}
	}
	if !strings.HasPrefix(loc, "s3://") && !path.IsAbs(loc) && !filepath.IsAbs(loc) {
		return fmt.Errorf("%q: want s3://bucket/prefix or an absolute path", loc)
	}
	return nil
}

// CheckRemote refuses a plan whose queries or database are local paths,
// for readers where a local path would be their own filesystem rather than
// the planner's: the operator and partitions in a cluster. A local path is
// right only where planner and partitions share a filesystem (the CLI, the
// local runner, HPC sites with a shared directory store).
func (p *Plan) CheckRemote() error {
	for _, l := range []struct{ field, loc string }{{"queries.location", p.Queries.Location}, {"database.location", p.Database.Location}} {
		if !strings.HasPrefix(l.loc, "s3://") {
			return fmt.Errorf("campaign %s: plan %s %q is a local path: in a cluster it would be read from the pod's own filesystem; want s3://bucket/...", p.Name, l.field, l.loc)
		}
	}
	return nil
}

// canonical is the plan's JSON without CreatedAt, for comparing plans.
func (p Plan) canonical() ([]byte, error) {
	p.CreatedAt = time.Time{}
	// A plan written before a policy field existed reads as its default.
	p.Policy = p.Policy.withDefaults()
	return json.Marshal(p)
}

// ChunkByLetters cuts queries into contiguous chunks of about letters
// residues each: a chunk closes before the query that would take it past
// letters, and holds at least one query.
func ChunkByLetters(queryLengths []int, letters int) []Chunk {
	var out []Chunk
	cur := Chunk{}
	for i, n := range queryLengths {
		if cur.End > cur.First && cur.Letters+int64(n) > int64(letters) {
			out = append(out, cur)
			cur = Chunk{First: i, End: i}
		}
		cur.End = i + 1
		cur.Letters += int64(n)
	}
	if cur.End > cur.First {
		out = append(out, cur)
	}
	return out
}

// ChunkByQueries cuts n queries into chunks of q queries (the last may be
// smaller). Letters are left zero: the caller may fill them in.
func ChunkByQueries(n, q int) []Chunk {
	if q < 1 {
		q = 1
	}
	var out []Chunk
	for first := 0; first < n; first += q {
		out = append(out, Chunk{First: first, End: min(first+q, n)})
	}
	return out
}

// WritePlan stores plan at the campaign prefix, once: writing the same plan
// again is a no-op, a different one is refused with what differs. Zero
// policy fields take their defaults first.
func WritePlan(ctx context.Context, st objstore.Store, plan *Plan) error {
	p := *plan
	if p.SchemaVersion == 0 {
		p.SchemaVersion = SchemaVersion
	}
	p.Policy = p.Policy.withDefaults()
	if err := p.validate(); err != nil {
		return fmt.Errorf("campaign %s: %w", st.URL(""), err)
	}
	if err := CheckStore(ctx, st); err != nil {
		return fmt.Errorf("campaign %s: %w", st.URL(""), err)
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding plan: %w", err)
	}
	if _, err := st.PutIfAbsent(ctx, PlanKey, append(data, '\n')); err == nil {
		*plan = p
		return nil
	} else if !errors.Is(err, objstore.ErrPrecondition) {
		return fmt.Errorf("writing plan: %w", err)
	}
	old, _, err := readPlan(ctx, st)
	if err != nil {
		return err
	}
	a, err := old.canonical()
	if err != nil {
		return err
	}
	b, err := p.canonical()
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("campaign %s already holds a different plan (%s)", st.URL(""), describeDiff(a, b))
	}
	*plan = *old
	return nil
}

// ReadPlan reads plan.json.
func ReadPlan(ctx context.Context, st objstore.Store) (*Plan, error) {
	p, _, err := readPlan(ctx, st)
	return p, err
}

func readPlan(ctx context.Context, st objstore.Store) (*Plan, string, error) {
	data, etag, err := st.GetBytes(ctx, PlanKey)
	if err != nil {
		return nil, "", fmt.Errorf("reading campaign plan: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, "", invalidPlan{fmt.Errorf("campaign plan %s: %w", st.URL(PlanKey), err)}
	}
	if p.SchemaVersion != SchemaVersion {
		return nil, "", invalidPlan{fmt.Errorf("campaign plan %s has schema version %d, this program reads %d", st.URL(PlanKey), p.SchemaVersion, SchemaVersion)}
	}
	if err := p.validate(); err != nil {
		return nil, "", invalidPlan{fmt.Errorf("campaign plan %s: %w", st.URL(PlanKey), err)}
	}
	return &p, etag, nil
}

// ErrInvalidPlan is matched by the errors of a plan.json that was read
// but is not a plan this program accepts (not JSON, another schema
// version, a field that fails validation): unlike a store's error, reading
// it again gives the same answer.
var ErrInvalidPlan = errors.New("invalid campaign plan")

// invalidPlan marks err as ErrInvalidPlan without changing its text.
type invalidPlan struct{ error }

func (e invalidPlan) Unwrap() error        { return e.error }
func (e invalidPlan) Is(target error) bool { return target == ErrInvalidPlan }
