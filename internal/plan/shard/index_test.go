package shard

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// buildIndex runs BuildShard and checks that it wrote no manifest.
func buildIndex(t *testing.T, opts Options, index int) *ShardResult {
	t.Helper()
	before := readManifest(t, opts.Output)
	r, err := BuildShard(context.Background(), opts, index)
	if err != nil {
		t.Fatalf("shard index %d: %v", index, err)
	}
	if after := readManifest(t, opts.Output); after != before {
		t.Fatalf("shard index %d changed manifest.json from %q to %q", index, before, after)
	}
	return r
}

// onlyBuild is the one build folder st holds.
func onlyBuild(t *testing.T, st objstore.Store) string {
	t.Helper()
	infos, err := st.List(context.Background(), manifest.BuildsDir+"/")
	if err != nil || len(infos) == 0 {
		t.Fatalf("no build folder: %v", err)
	}
	parts := strings.SplitN(infos[0].Key, "/", 3)
	for _, info := range infos {
		if !strings.HasPrefix(info.Key, parts[0]+"/"+parts[1]+"/") {
			t.Fatalf("several build folders: %s and %s", infos[0].Key, info.Key)
		}
	}
	return parts[0] + "/" + parts[1]
}

// buildFolder is the build folder opts' input and shard count give.
func buildFolder(t *testing.T, opts Options) string {
	t.Helper()
	j, err := newJob(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	return j.build
}

// readManifest returns manifest.json's bytes, "" if there is none.
func readManifest(t *testing.T, st objstore.Store) string {
	t.Helper()
	data, _, err := st.GetBytes(context.Background(), manifest.FileName)
	if errors.Is(err, objstore.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func requireNoManifest(t *testing.T, st objstore.Store) {
	t.Helper()
	if _, err := st.Stat(context.Background(), manifest.FileName); !errors.Is(err, objstore.ErrNotExist) {
		t.Fatalf("manifest.json: %v, want none", err)
	}
}

// TestIndexesThenFinish builds every shard index separately, as the pods of
// an Indexed Job do, and finishes: the database equals a one-shot build's.
func TestIndexesThenFinish(t *testing.T) {
	requireBLAST(t)
	ctx := context.Background()
	input, _ := synthetic(t, 21, "ACGT", 5, 3, 8)
	oneSt, _ := newStore(t)
	one, err := Build(ctx, buildOpts(input, oneSt, 3))
	if err != nil {
		t.Fatal(err)
	}

	st, _ := newStore(t)
	opts := buildOpts(input, st, 3)
	for i := 2; i >= 0; i-- { // any order
		if r := buildIndex(t, opts, i); !r.Built || r.Shard.ID != i || r.Shards != 3 || r.Database != "synth" {
			t.Errorf("shard index %d: %+v", i, r)
		}
	}

	// A retried index is a no-op.
	st.puts.Store(0)
	r := buildIndex(t, opts, 1)
	if r.Built || st.puts.Load() != 0 {
		t.Errorf("re-run of index 1: built %v, %d Puts; want a no-op", r.Built, st.puts.Load())
	}

	// A lost file shows at finish, naming the shard; re-running the index
	// repairs it.
	lost := r.Shard.Files[0].Name
	if err := st.Delete(ctx, onlyBuild(t, st)+"/"+lost); err != nil {
		t.Fatal(err)
	}
	_, err = Finish(ctx, opts)
	if err == nil || !strings.Contains(err.Error(), "shard index 1 (shard-001): files missing at the output: "+lost) {
		t.Fatalf("finish with %s lost: %v", lost, err)
	}
	requireNoManifest(t, st)
	if r := buildIndex(t, opts, 1); !r.Built {
		t.Errorf("index 1 with a lost file was not rebuilt")
	}

	m, err := Finish(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := manifest.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded, m) {
		t.Errorf("saved manifest differs from returned one")
	}
	requireSameDatabase(t, oneSt, one, st, m)

	// Finishing again, or retrying an index after the finish, writes nothing.
	st.puts.Store(0)
	again, err := Finish(ctx, opts)
	if err != nil || !reflect.DeepEqual(again, m) {
		t.Errorf("second finish: %v", err)
	}
	if r := buildIndex(t, opts, 0); r.Built {
		t.Errorf("index 0 rebuilt after the finish")
	}
	if n := st.puts.Load(); n != 0 {
		t.Errorf("%d Puts after the finish, want none", n)
	}

	// A one-shot build leaves markers too: without its manifest, its
	// indexes are still built, and finishing restores the very manifest.
	if err := oneSt.Delete(ctx, manifest.FileName); err != nil {
		t.Fatal(err)
	}
	oneOpts := buildOpts(input, oneSt, 3)
	oneSt.puts.Store(0)
	if r := buildIndex(t, oneOpts, 2); r.Built || oneSt.puts.Load() != 0 {
		t.Errorf("index 2 of a one-shot build: built %v, %d Puts", r.Built, oneSt.puts.Load())
	}
	if m, err := Finish(ctx, oneOpts); err != nil || !reflect.DeepEqual(m, one) {
		t.Errorf("finish over a one-shot build's markers: %v\ngot  %+v\nwant %+v", err, m, one)
	}
}

// TestFinishIncomplete: finishing names every index that is missing or
// belongs to another build, and writes nothing.
func TestFinishIncomplete(t *testing.T) {
	requireBLAST(t)
	ctx := context.Background()
	inputA, _ := synthetic(t, 22, "ACGT", 3, 2, 3)
	inputB, _ := synthetic(t, 23, "ACGT", 3, 2, 3)
	st, _ := newStore(t)
	optsA, optsB := buildOpts(inputA, st, 3), buildOpts(inputB, st, 3)
	buildIndex(t, optsA, 0)
	buildIndex(t, optsB, 2)

	st.puts.Store(0)
	_, err := Finish(ctx, optsA)
	if err == nil {
		t.Fatal("finish succeeded with index 1 missing and index 2 from another input")
	}
	// Another input's shards went to its own build folder.
	for _, want := range []string{"2 of 3 shards", "shard indexes not built yet: 1, 2 "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// A marker of another input in this build's folder is named as such.
	folderA, folderB := buildFolder(t, optsA), buildFolder(t, optsB)
	data, _, err := st.GetBytes(ctx, folderB+"/"+markerKey("shard-002"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, folderA+"/"+markerKey("shard-002"), bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	st.puts.Store(0)
	_, err = Finish(ctx, optsA)
	for _, want := range []string{"2 of 3 shards", "shard indexes not built yet: 1;", "shard index 2 (shard-002): built from another input"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	// With another shard count, the build is another: every index is named.
	_, err = Finish(ctx, buildOpts(inputA, st, 4))
	for _, want := range []string{"4 of 4 shards", "not built yet: 0, 1, 2, 3 "} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("finish with 4 shards: error %v lacks %q", err, want)
		}
	}
	if n := st.puts.Load(); n != 0 {
		t.Errorf("refused finishes made %d Puts", n)
	}
	requireNoManifest(t, st)

	// Re-running index 2 with the right input replaces the other build's
	// shard without --force; then the database completes.
	buildIndex(t, optsA, 1)
	if r := buildIndex(t, optsA, 2); !r.Built {
		t.Errorf("index 2 from another input was not rebuilt")
	}
	m, err := Finish(ctx, optsA)
	if err != nil {
		t.Fatal(err)
	}
	if m.Source.Name != "synth.fa" || len(m.Shards) != 3 {
		t.Errorf("manifest %+v", m)
	}

	// Once finished, an index of another input is refused as Build refuses.
	st.puts.Store(0)
	_, err = BuildShard(ctx, optsB, 0)
	if err == nil || !strings.Contains(err.Error(), "not from this input") || !strings.Contains(err.Error(), "force") {
		t.Errorf("index of another input over a finished database: %v", err)
	}
	if n := st.puts.Load(); n != 0 {
		t.Errorf("refused index made %d Puts", n)
	}
}

func TestShardIndexOptionErrors(t *testing.T) {
	st, _ := newStore(t)
	ctx := context.Background()
	// The input does not exist: these fail before reading it.
	opts := Options{Input: "missing.fa", Type: manifest.Nucleotide, Shards: 3, Output: st}
	for _, index := range []int{-1, 3} {
		if _, err := BuildShard(ctx, opts, index); err == nil || !strings.Contains(err.Error(), "less than the shard count 3") {
			t.Errorf("index %d: %v", index, err)
		}
	}
	target := Options{Input: "missing.fa", Type: manifest.Nucleotide, TargetShardLetters: 100, Output: st}
	if _, err := BuildShard(ctx, target, 0); err == nil || !strings.Contains(err.Error(), "fixed shard count") {
		t.Errorf("BuildShard with a target: %v", err)
	}
	if _, err := Finish(ctx, target); err == nil || !strings.Contains(err.Error(), "fixed shard count") {
		t.Errorf("Finish with a target: %v", err)
	}
	both := Options{Input: "missing.fa", Type: manifest.Nucleotide, Shards: 2, TargetShardLetters: 100, Output: st}
	if _, err := Build(ctx, both); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("Build with shards and a target: %v", err)
	}
}

func TestShardCount(t *testing.T) {
	src := &source{seqs: make([]seqInfo, 5), letters: 1000}
	for _, tc := range []struct {
		shards int
		target int64
		want   int
	}{
		{shards: 3, want: 3},
		{target: 1000, want: 1},
		{target: 5000, want: 1},
		{target: 999, want: 2},
		{target: 334, want: 3},
		{target: 333, want: 4},
		{target: 1, want: 5}, // at most one shard per sequence
	} {
		got, err := shardCount(&Options{Shards: tc.shards, TargetShardLetters: tc.target}, src)
		if err != nil || got != tc.want {
			t.Errorf("shards %d, target %d: %d, %v; want %d", tc.shards, tc.target, got, err, tc.want)
		}
	}
	if _, err := shardCount(&Options{Shards: 6}, src); err == nil || !strings.Contains(err.Error(), "cannot be empty") {
		t.Errorf("6 shards for 5 sequences: %v", err)
	}
}
