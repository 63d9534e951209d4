package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// dropLastPart composes all parts but the last: a store that got a
// compose wrong.
type dropLastPart struct{ objstore.Store }

func (d dropLastPart) Compose(ctx context.Context, dst string, srcs []string) error {
	return d.Store.Compose(ctx, dst, srcs[:len(srcs)-1])
}

// TestAssembledChecked: the assembled result's SHA-256 is computed from
// its verified parts and recorded; a composed object that differs is
// deleted and no done marker written; results streamed later must match
// the record.
func TestAssembledChecked(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := campaign(t, st, ChunkByQueries(6, 2), Options{})
		drain(t, l, "p", never)
		var want bytes.Buffer
		for _, r := range []Range{{0, 2}, {2, 4}, {4, 6}} {
			want.Write(result(r))
		}
		sum := sha256.Sum256(want.Bytes())

		bad := open(t, dropLastPart{st}, Options{})
		if _, err := bad.Assemble(ctx); err == nil || !strings.Contains(err.Error(), "verified parts") {
			t.Fatalf("Assemble on a store that composes wrong = %v, want the mismatch named", err)
		}
		if asm, err := l.AssembledResult(ctx); err != nil || asm != nil {
			t.Fatalf("after a bad compose the done marker is %+v, %v; want none", asm, err)
		}
		if _, err := st.Stat(ctx, ResultKey); !errors.Is(err, objstore.ErrNotExist) {
			t.Errorf("the bad composed result was left: %v", err)
		}

		if _, err := l.Assemble(ctx); err != nil {
			t.Fatal(err)
		}
		asm, err := l.AssembledResult(ctx)
		if err != nil || asm == nil || asm.SHA256 != hex.EncodeToString(sum[:]) || asm.Size != int64(want.Len()) {
			t.Fatalf("assembled record %+v, %v; want %d bytes with sha256 %x", asm, err, want.Len(), sum)
		}
		var got bytes.Buffer
		if err := l.StreamResults(ctx, &got); err != nil || got.String() != want.String() {
			t.Fatalf("StreamResults = %q, %v", got.String(), err)
		}

		// A record that no longer matches the parts is reported.
		rec := assembledRecord{Key: ResultKey, Size: asm.Size, SHA256: strings.Repeat("0", 64), Token: newToken()}
		if err := st.Put(ctx, assembledKey, bytes.NewReader(encode(rec)), int64(len(encode(rec)))); err != nil {
			t.Fatal(err)
		}
		if err := l.StreamResults(ctx, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "differ from the assembled result's record") {
			t.Errorf("StreamResults against a mismatched record = %v", err)
		}
	})
}

// TestReadResults: a reader checks the whole against the record it is
// given (a SearchCampaign's status), else the store's; without either it
// refuses; a bad part is reported and left, never voided.
func TestReadResults(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := campaign(t, st, ChunkByQueries(4, 2), Options{})
		drain(t, l, "p", never)
		want := string(result(Range{0, 2})) + string(result(Range{2, 4}))
		sum := sha256.Sum256([]byte(want))
		status := &Expected{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(want)), From: "status.resultSHA256"}

		if err := l.ReadResults(ctx, &bytes.Buffer{}, nil); err == nil || !strings.Contains(err.Error(), "no record of the whole result") {
			t.Errorf("unassembled, no record given: %v", err)
		}
		var got bytes.Buffer
		if err := l.ReadResults(ctx, &got, status); err != nil || got.String() != want {
			t.Errorf("against the status: %q, %v", got.String(), err)
		}
		if _, err := l.Assemble(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l.ReadResults(ctx, &bytes.Buffer{}, nil); err != nil {
			t.Errorf("against assembled.json: %v", err)
		}
		other := &Expected{SHA256: strings.Repeat("0", 64), Size: int64(len(want)), From: "status.resultSHA256"}
		if err := l.ReadResults(ctx, &bytes.Buffer{}, other); err == nil || !strings.Contains(err.Error(), "differ from status.resultSHA256") {
			t.Errorf("against another status: %v", err)
		}

		// A part rewritten in the store: reported, its commit kept.
		c := open(t, st, Options{})
		keys, err := st.List(ctx, "chunks/000000002-000000004/result")
		if err != nil || len(keys) != 1 {
			t.Fatalf("result keys %v, %v", keys, err)
		}
		bad := bytes.ToUpper(result(Range{2, 4}))
		if err := st.Put(ctx, keys[0].Key, bytes.NewReader(bad), int64(len(bad))); err != nil {
			t.Fatal(err)
		}
		if err := c.ReadResults(ctx, &bytes.Buffer{}, status); err == nil || !strings.Contains(err.Error(), "readers change nothing") {
			t.Errorf("a bad part: %v", err)
		}
		if s, err := open(t, st, Options{}).Status(ctx); err != nil || !s.Complete {
			t.Errorf("after a reader met a bad part the campaign is %+v, %v; want it complete still", s, err)
		}
	})
}
