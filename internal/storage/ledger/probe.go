package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// probePrefix holds the short-lived objects CheckStore writes.
const probePrefix = "probes/"

// ErrStoreUnsafe: the object store ignores the conditional writes the
// ledger's guarantees rest on.
var ErrStoreUnsafe = errors.New("the object store does not honour conditional writes")

// CheckStore proves that st honours If-None-Match: * and If-Match before
// a campaign trusts it: a store (or a proxy in front of it) that ignores
// them would let two partitions commit the same chunk, silently. It
// writes, races and deletes one small object under probes/.
func CheckStore(ctx context.Context, st objstore.Store) error {
	var err error
	for range probeTries {
		if err = checkStore(ctx, st); !errors.Is(err, errProbeLost) {
			return err
		}
	}
	return err
}

// probeTries bounds probing a store that loses the probe's first write.
const probeTries = 3

// errProbeLost: the store acknowledged the probe's create and does not
// hold it. Raced, such a create looks like a store ignoring If-None-Match,
// which a store that loses a write now and then is not: probe again.
var errProbeLost = errors.New("the store acknowledged the probe's create but does not hold it")

func checkStore(ctx context.Context, st objstore.Store) error {
	key := probePrefix + newToken() + ".json"
	defer func() { _ = st.Delete(context.WithoutCancel(ctx), key) }()
	unsafe := func(how string) error {
		return fmt.Errorf("%w: at %s %s; the ledger needs both to commit each chunk exactly once (MinIO and AWS S3 honour them; check any proxy or gateway in between)",
			ErrStoreUnsafe, st.URL(""), how)
	}
	// The random key is new: a lost precondition there is our own create,
	// retried after its answer was lost (so too for the last write).
	first := []byte(`{"probe":1}` + "\n")
	etag, err := st.PutIfAbsent(ctx, key, first)
	if errors.Is(err, objstore.ErrPrecondition) {
		etag, err = ownWrite(ctx, st, key, first, err)
	}
	if err != nil {
		return fmt.Errorf("checking the object store at %s: creating %s: %w", st.URL(""), key, err)
	}
	if _, kept := holds(ctx, st, key, first); !kept {
		return fmt.Errorf("checking the object store at %s: %s: %w", st.URL(""), key, errProbeLost)
	}
	switch _, err := st.PutIfAbsent(ctx, key, []byte(`{"probe":2}`+"\n")); {
	case err == nil:
		return unsafe("a create with If-None-Match: * replaced an existing object")
	case !errors.Is(err, objstore.ErrPrecondition):
		return fmt.Errorf("checking the object store at %s: %w", st.URL(""), err)
	}
	switch _, err := st.PutIfMatch(ctx, key, []byte(`{"probe":3}`+"\n"), `"0123456789abcdef0123456789abcdef"`); {
	case err == nil:
		return unsafe("a write with If-Match on a stale ETag succeeded")
	case !errors.Is(err, objstore.ErrPrecondition):
		return fmt.Errorf("checking the object store at %s: %w", st.URL(""), err)
	}
	last := []byte(`{"probe":4}` + "\n")
	_, err = st.PutIfMatch(ctx, key, last, etag)
	if errors.Is(err, objstore.ErrPrecondition) {
		_, err = ownWrite(ctx, st, key, last, err)
	}
	if err != nil {
		return fmt.Errorf("checking the object store at %s: a write with If-Match on the current ETag failed: %w", st.URL(""), err)
	}
	return nil
}

// ownWrite is the ETag of key if it holds data (a retried write of ours
// that landed the first time), else lost, the error that made us look.
func ownWrite(ctx context.Context, st objstore.Store, key string, data []byte, lost error) (string, error) {
	if etag, ok := holds(ctx, st, key, data); ok {
		return etag, nil
	}
	return "", lost
}
