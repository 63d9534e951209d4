package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

var (
	// ErrNoChunk: no chunk will ever be leasable again; every leaf chunk is
	// committed or failed.
	ErrNoChunk = errors.New("no chunk left to lease")
	// ErrAllLeased: every undecided chunk is leased by someone else now;
	// errors.As an *AllLeasedError to learn when to try again.
	ErrAllLeased = errors.New("every remaining chunk is leased")
	// ErrLeaseLost: the lease was taken over (or released) by another.
	ErrLeaseLost = errors.New("lease lost")
	// ErrReleased: renewing a lease its own holder has given up
	// (committed, failed, released). It matches ErrLeaseLost too.
	ErrReleased = fmt.Errorf("%w: released by its holder", ErrLeaseLost)
	// ErrAlreadyCommitted: the chunk was decided by someone else first (a
	// commit, or a split or failure after its attempts ran out). Not a
	// failure: discard the work.
	ErrAlreadyCommitted = errors.New("chunk already committed")
	// ErrPlanChanged: plan.json is not the one the ledger was opened with.
	ErrPlanChanged = errors.New("campaign plan changed")
	// ErrIncomplete: results were asked for before every chunk was done.
	ErrIncomplete = errors.New("campaign incomplete")
)

// news are the ledger's answers that report the campaign's state rather
// than a failure.
var news = []error{ErrNoChunk, ErrAllLeased, ErrAlreadyCommitted, ErrIncomplete}

// IsNews reports whether err is an answer, not a failure: nothing left
// to lease, all leased, already committed, or not complete yet.
func IsNews(err error) bool {
	return err != nil && slices.ContainsFunc(news, func(n error) bool { return errors.Is(err, n) })
}

// AllLeasedError says when the earliest foreign lease becomes takeable
// (expiry plus skew). A zero Until means chunks were lost to racing
// partitions just now: try again at once.
type AllLeasedError struct {
	Until time.Time
}

func (e *AllLeasedError) Error() string {
	return fmt.Sprintf("%v until %s", ErrAllLeased, e.Until.Format(time.RFC3339))
}

func (e *AllLeasedError) Is(target error) bool { return target == ErrAllLeased }

// IncompleteError lists the chunks still missing.
type IncompleteError struct {
	Missing []Range
}

func (e *IncompleteError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, r := range e.Missing {
		parts[i] = r.String()
	}
	return fmt.Sprintf("%v: missing query ranges %s", ErrIncomplete, strings.Join(parts, " "))
}

func (e *IncompleteError) Is(target error) bool { return target == ErrIncomplete }

// Options tune a Ledger. The zero value is ready to use.
type Options struct {
	// Now is the clock; tests inject one to expire leases.
	Now func() time.Time
	// Site names where this handle's partition runs (a Kubernetes
	// cluster, an HPC site): leases, attempts and commits record it, so
	// progress can be told apart by site.
	Site string
}

// Ledger is one process's handle on a campaign's ledger. It caches small
// records by ETag, so a long-lived handle re-reads only what changed.
type Ledger struct {
	st       objstore.Store
	plan     *Plan
	planETag string
	now      func() time.Time
	site     string

	mu    sync.Mutex
	cache map[string]cached
	seen  map[string]observation // lease versions, by lease object key
}

// observation is when this handle first saw a version of a lease object
// (a chunk's lease.json, the assembly's), on its own clock: expiry is
// judged by how long a version stays unchanged here, never by the
// holder's clock.
type observation struct {
	etag string
	at   time.Time
}

type cached struct {
	etag string
	data []byte
}

// Open reads the campaign's plan from st (rooted at the campaign prefix).
func Open(ctx context.Context, st objstore.Store, opts Options) (*Ledger, error) {
	p, etag, err := readPlan(ctx, st)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Ledger{st: st, plan: p, planETag: etag, now: now, site: opts.Site, cache: map[string]cached{}, seen: map[string]observation{}}, nil
}

// Plan is the plan the ledger was opened with.
func (l *Ledger) Plan() *Plan { return l.plan }

// PlanETag is the ETag of the plan.json the ledger was opened with.
func (l *Ledger) PlanETag() string { return l.planETag }

// Store is the campaign's store.
func (l *Ledger) Store() objstore.Store { return l.st }

// policy is the plan's, with defaults for fields older plans lack.
func (l *Ledger) policy() Policy { return l.plan.Policy.withDefaults() }

// readSmall returns key's bytes, from the cache when the listed ETag is
// the one cached.
func (l *Ledger) readSmall(ctx context.Context, key, listedETag string) ([]byte, string, error) {
	l.mu.Lock()
	c, ok := l.cache[key]
	l.mu.Unlock()
	if ok && listedETag != "" && c.etag == listedETag {
		return c.data, c.etag, nil
	}
	data, etag, err := l.st.GetBytes(ctx, key)
	if err != nil {
		return nil, "", err
	}
	l.remember(key, etag, data)
	return data, etag, nil
}

func (l *Ledger) remember(key, etag string, data []byte) {
	l.mu.Lock()
	l.cache[key] = cached{etag, data}
	l.mu.Unlock()
}

// casWon tells whether a conditional write that reported a lost
// precondition in fact landed (a retried request whose first try
// succeeded): the object then holds exactly our bytes.
func (l *Ledger) casWon(ctx context.Context, key string, data []byte) (string, bool) {
	etag, won := holds(ctx, l.st, key, data)
	if won {
		l.remember(key, etag, data)
	}
	return etag, won
}

// holds tells whether key holds exactly data, and its ETag then.
func holds(ctx context.Context, st objstore.Store, key string, data []byte) (string, bool) {
	cur, etag, err := st.GetBytes(ctx, key)
	if err != nil || string(cur) != string(data) {
		return "", false
	}
	return etag, true
}

// CheckPlan makes sure plan.json is still the one this ledger was opened
// with: an edited or deleted plan gives an error matching ErrPlanChanged,
// after which nothing the chunks record can be trusted to the plan.
// Other errors are the store's.
func (l *Ledger) CheckPlan(ctx context.Context) error {
	err := l.checkPlan(ctx)
	if errors.Is(err, objstore.ErrNotExist) {
		return fmt.Errorf("%w: %s was deleted", ErrPlanChanged, l.st.URL(PlanKey))
	}
	return err
}

// checkPlan makes sure plan.json is still the one this ledger follows.
func (l *Ledger) checkPlan(ctx context.Context) error {
	info, err := l.st.Stat(ctx, PlanKey)
	if err != nil {
		return fmt.Errorf("checking campaign plan: %w", err)
	}
	if info.ETag != l.planETag {
		return fmt.Errorf("%w: %s has ETag %s, opened with %s", ErrPlanChanged, l.st.URL(PlanKey), info.ETag, l.planETag)
	}
	return nil
}
