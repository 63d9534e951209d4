package ledger

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// unconditional ignores preconditions, as some S3 gateways do.
type unconditional struct{ objstore.Store }

func (u unconditional) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	if err := u.Store.Put(ctx, key, strings.NewReader(string(data)), int64(len(data))); err != nil {
		return "", err
	}
	info, err := u.Store.Stat(ctx, key)
	return info.ETag, err
}

// staleMatch ignores If-Match only.
type staleMatch struct{ objstore.Store }

func (s staleMatch) PutIfMatch(ctx context.Context, key string, data []byte, _ string) (string, error) {
	return unconditional(s).PutIfAbsent(ctx, key, data)
}

// TestCheckStore: real stores pass and leave nothing; stores that ignore
// either precondition are refused before a plan is written.
func TestCheckStore(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		if err := CheckStore(ctx, st); err != nil {
			t.Fatalf("CheckStore on a real store: %v", err)
		}
		if left, err := st.List(ctx, probePrefix); err != nil || len(left) != 0 {
			t.Errorf("probe objects left: %v, %v", left, err)
		}
		for _, c := range []struct {
			name string
			st   objstore.Store
			want string
		}{
			{"if-none-match-ignored", unconditional{fresh()}, "If-None-Match"},
			{"if-match-ignored", staleMatch{fresh()}, "If-Match on a stale ETag"},
		} {
			err := CheckStore(ctx, c.st)
			if !errors.Is(err, ErrStoreUnsafe) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: CheckStore = %v, want ErrStoreUnsafe naming %s", c.name, err, c.want)
			}
			if err := WritePlan(ctx, c.st, testPlan([]Chunk{{0, 2, 0}})); !errors.Is(err, ErrStoreUnsafe) {
				t.Errorf("%s: WritePlan = %v, want it refused", c.name, err)
			}
		}
	})
}
