package shard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// Verify reports the input's checksum and split without writing, and a
// shard run given another checksum (the source replaced after it was
// verified) fails before writing anything.
func TestVerifyThenShardChecksSource(t *testing.T) {
	requireBLAST(t, "makeblastdb")
	ctx := context.Background()
	input, _ := synthetic(t, 7, "ACGT", 12, 5, 20)
	st, _ := newStore(t)
	v, err := Verify(ctx, buildOpts(input, st, 3))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	seqs := strings.Count(string(b), ">")
	if v.SHA256 != hex.EncodeToString(sum[:]) || v.Size != int64(len(b)) || v.Shards != 3 || v.Sequences != seqs {
		t.Errorf("verified %+v, want sha256 %x of %d bytes, %d sequences in 3 shards", v, sum, len(b), seqs)
	}
	if infos, err := st.List(ctx, ""); err != nil || len(infos) != 0 {
		t.Errorf("Verify wrote %d objects (%v)", len(infos), err)
	}

	opts := buildOpts(input, st, 3)
	opts.SourceSHA256 = strings.ToUpper(v.SHA256) // hex in either case
	buildIndex(t, opts, 0)
	opts.SourceSHA256 = strings.Repeat("0", 64)
	if _, err := BuildShard(ctx, opts, 1); err == nil || !strings.Contains(err.Error(), "changed during the build") {
		t.Fatalf("shard of a source with another checksum: %v", err)
	}
	if infos, _ := st.List(ctx, ""); len(infos) == 0 {
		t.Error("shard 0 wrote nothing")
	}
}
