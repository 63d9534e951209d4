package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/blastfleet/blastfleet/internal/shared/jitter"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// assemblingKey is the assembly lease: its holder alone reads the parts
// and composes the result, so partitions that finish together do not each
// read the whole result (three times: its parts, the compose, the check).
const assemblingKey = "assembling.json"

// assemblyPoll is how often a caller waiting for another's assembly looks
// for assembled.json (spread by jitter, and no later than the lease may
// be taken over).
const assemblyPoll = time.Second

// Assemble composes the committed results, in query order, into
// ResultKey once the campaign is complete, and marks it done; later calls
// find the marker and return at once. One caller at a time assembles:
// the holder of the assembly lease (taken like a chunk's, by a
// conditional write, renewed while it works, taken over once it stays
// unchanged for lease + skew). The others read no part: they wait,
// bounded by ctx, until the marker appears (then return as the holder
// does) or the lease is released or expires (then they take it). Every
// result's SHA-256 is checked first: a bad one is voided (the chunk will
// be redone) and ErrIncomplete returned.
func (l *Ledger) Assemble(ctx context.Context) (string, error) {
	for {
		done, err := l.Assembled(ctx)
		if err != nil {
			return "", fmt.Errorf("assembling results: %w", err)
		}
		if done {
			return ResultKey, nil
		}
		ls, holder, wait, err := l.takeAssembly(ctx)
		if err != nil {
			return "", err
		}
		if ls != nil {
			key, lost, err := l.assembleLeased(ctx, ls)
			if !lost {
				return key, err
			}
			continue // taken over: the new holder assembles
		}
		if wait = min(wait, jitter.Spread(assemblyPoll)); wait <= 0 {
			continue // lost a race for the lease just now: look again
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", fmt.Errorf("waiting for %s to assemble the result: %w", holder, ctx.Err())
		case <-t.C:
		}
	}
}

// takeAssembly takes the assembly lease if it is absent, released,
// unreadable or expired. Otherwise it returns its holder and how long
// until it may be taken over; nil and no wait: another took it just now.
func (l *Ledger) takeAssembly(ctx context.Context) (*Lease, string, time.Duration, error) {
	data, etag, err := l.st.GetBytes(ctx, assemblingKey)
	if err != nil && !errors.Is(err, objstore.ErrNotExist) {
		return nil, "", 0, fmt.Errorf("assembling results: reading %s: %w", assemblingKey, err)
	}
	if err == nil {
		var cur leaseRecord
		if json.Unmarshal(data, &cur) == nil && !cur.Released {
			if exp := l.expiry(assemblingKey, etag); l.now().Before(exp) {
				return nil, cur.Holder, exp.Sub(l.now()), nil
			}
		}
	}
	ls, err := l.takeLease(ctx, assemblingKey, "the result's assembly", assembler(), etag)
	if errors.Is(err, errLost) {
		return nil, "", 0, nil
	}
	if err != nil {
		return nil, "", 0, fmt.Errorf("assembling results: leasing %s: %w", l.st.URL(assemblingKey), err)
	}
	return ls, "", 0, nil
}

// assembleLeased assembles under the lease ls, renewing it meanwhile, and
// releases it. lost: the lease was taken over (this handle stalled past
// its expiry), so the work was abandoned to the new holder.
func (l *Ledger) assembleLeased(ctx context.Context, ls *Lease) (key string, lost bool, err error) {
	defer func() {
		rctx, cancel := pastStop(ctx)
		defer cancel()
		_ = ls.Release(rctx) // a lease taken over is left alone
	}()
	// The last holder may have finished between our look and our lease.
	if done, err := l.Assembled(ctx); err != nil || done {
		if err != nil {
			return "", false, fmt.Errorf("assembling results: %w", err)
		}
		return ResultKey, false, nil
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(l.policy().Renew())
		defer t.Stop()
		for {
			select {
			case <-actx.Done():
				return
			case <-t.C:
			}
			// A store that fails renewals for a lease's time loses the
			// lease; the renewal after says so.
			if err := ls.Renew(actx); errors.Is(err, ErrLeaseLost) {
				lost = true
				cancel()
				return
			}
		}
	}()
	key, err = l.assemble(actx)
	cancel()
	wg.Wait()
	if lost && ctx.Err() == nil {
		return "", true, nil
	}
	return key, false, err
}

// assembler names this process in the assembly lease: in Kubernetes the
// host name is the pod's, so the launcher of a partition.
func assembler() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}
