package shard

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestS3 reads the FASTA from MinIO, plain and gzip, and writes the
// database there, one-shot and index by index.
func TestS3(t *testing.T) {
	requireBLAST(t)
	ctx := context.Background()
	mi := testenv.StartMinIO(t)
	mi.MakeBucket(t, "fasta")
	mi.MakeBucket(t, "dbs")
	mi.Setenv(t)
	open := func(location string) *countingStore {
		st, err := objstore.Open(ctx, location)
		if err != nil {
			t.Fatal(err)
		}
		return &countingStore{Store: st}
	}

	input, _ := synthetic(t, 31, "ACGT", 4, 3, 6)
	raw, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	in := open("s3://fasta/in")
	for key, data := range map[string][]byte{"synth.fa": raw, "synth.fa.gz": gz.Bytes()} {
		if err := in.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}

	// A plain object gives the database the local file gives.
	localSt, _ := newStore(t)
	local, err := Build(ctx, buildOpts(input, localSt, 3))
	if err != nil {
		t.Fatal(err)
	}
	plainSt := open("s3://dbs/plain")
	plain, err := Build(ctx, buildOpts("s3://fasta/in/synth.fa", plainSt, 3))
	if err != nil {
		t.Fatal(err)
	}
	requireSameDatabase(t, localSt, local, plainSt, plain)

	// A gzip object, one-shot and index by index, both into MinIO.
	gzURL := "s3://fasta/in/synth.fa.gz"
	oneSt := open("s3://dbs/gz-one")
	one, err := Build(ctx, buildOpts(gzURL, oneSt, 3))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(gz.Bytes())
	if want := (manifest.Source{Name: "synth.fa.gz", SHA256: hex.EncodeToString(sum[:]), Size: int64(gz.Len())}); one.Source != want || one.Name != "synth" {
		t.Errorf("gzip source %+v (name %s), want %+v", one.Source, one.Name, want)
	}
	splitSt := open("s3://dbs/gz-split")
	opts := buildOpts(gzURL, splitSt, 3)
	for i := range 3 {
		buildIndex(t, opts, i)
	}
	splitSt.puts.Store(0)
	if r := buildIndex(t, opts, 0); r.Built || splitSt.puts.Load() != 0 {
		t.Errorf("re-run of index 0: built %v, %d Puts; want a no-op", r.Built, splitSt.puts.Load())
	}
	if _, err := Finish(ctx, buildOpts(gzURL, splitSt, 4)); err == nil || !strings.Contains(err.Error(), "not built yet: 0, 1, 2, 3 ") {
		t.Errorf("finish with a shard count the indexes did not use: %v", err)
	}
	m, err := Finish(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	requireSameDatabase(t, oneSt, one, splitSt, m)

	// A missing object is named.
	_, err = Build(ctx, buildOpts("s3://fasta/in/nope.fa", open("s3://dbs/nope"), 1))
	if !errors.Is(err, objstore.ErrNotExist) || !strings.Contains(err.Error(), "s3://fasta/in/nope.fa") {
		t.Errorf("missing input: %v", err)
	}
}
