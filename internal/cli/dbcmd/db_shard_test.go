package dbcmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/cli/clitest"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestDBShardIndexFlagErrors(t *testing.T) {
	base := []string{"db", "shard", "--input", "x.fa", "--type", "nucl"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target-shard-letters", "100", "--shard-index", "0"}, "--shard-index requires --shards N"},
		{[]string{"--shards", "2", "--target-shard-letters", "100"}, "--shards and --target-shard-letters exclude each other"},
		{nil, "one of --shards or --target-shard-letters is required"},
		{[]string{"--target-shard-letters", "0"}, "--target-shard-letters must be ≥ 1, not 0"},
		{[]string{"--shards", "2", "--shard-index", "2"}, "--shard-index 2 is out of range: want 0 ≤ I < --shards 2"},
		{[]string{"--shards", "2", "--shard-index", "-1"}, "--shard-index -1 is out of range"},
		{[]string{"--target-shard-letters", "100", "--finish"}, "--finish requires --shards N"},
		{[]string{"--shards", "2", "--shard-index", "0", "--finish"}, "--shard-index and --finish exclude each other"},
		{[]string{"--shards", "2", "--verify", "--finish"}, "--verify writes nothing: it excludes --shard-index and --finish"},
		{[]string{"--shards", "2", "--shard-index", "0", "--source-sha256", "abc"}, `--source-sha256 "abc" is not a SHA-256`},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := append(append(append([]string{}, base...), "--output", out), tc.args...)
		testCLI.ExpectRefused(t, tc.args, args, tc.want, out)
	}
}

const tinyFASTA = ">a\nACGTACGTTAGCATCGATCGA\n>b\nTTGACCAGTAGCATGCA\n>c\nGGGCATCGACTTTAGC\n"

// tinyInput writes tinyFASTA to tiny.fasta in a new directory.
func tinyInput(t *testing.T) (dir, input string) {
	t.Helper()
	dir = t.TempDir()
	input = filepath.Join(dir, "tiny.fasta")
	clitest.WriteFile(t, input, []byte(tinyFASTA))
	return dir, input
}

// TestDBShardIndexes runs the Indexed Job's commands on a directory: index
// runs, a premature finish, and the finish.
func TestDBShardIndexes(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb")
	dir, input := tinyInput(t)
	out := filepath.Join(dir, "db")
	shard := func(extra ...string) (string, string, error) {
		return run(t, "blastfleet", append([]string{"db", "shard", "--input", input, "--type", "nucl", "--shards", "2", "--output", out}, extra...)...)
	}

	stdout, stderr, err := shard("--shard-index", "1")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := "tiny: shard index 1 of 2 (shard-001): 2 sequences, 33 letters, "; !strings.HasPrefix(stdout, want) || !strings.HasSuffix(stdout, " files, built\n") {
		t.Errorf("stdout %q, want %q... built", stdout, want)
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err == nil {
		t.Errorf("--shard-index wrote manifest.json")
	}
	if stdout, _, err := shard("--shard-index", "1"); err != nil || !strings.HasSuffix(stdout, "already built\n") {
		t.Errorf("retried index: %v, %q", err, stdout)
	}

	_, _, err = shard("--finish")
	if err == nil || !strings.Contains(err.Error(), "shard indexes not built yet: 0") {
		t.Errorf("finish before index 0: %v", err)
	}
	if _, _, err := shard("--shard-index", "0"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = shard("--finish")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := "tiny: 3 sequences, 54 letters, 2 shards, manifest " + filepath.Join(out, "manifest.json") + "\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
}

// TestDBShardTargetLetters derives the shard count from the letters.
func TestDBShardTargetLetters(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb")
	dir, input := tinyInput(t)
	out := filepath.Join(dir, "db")
	// 54 letters, at most 30 per shard: 2 shards.
	stdout, stderr, err := run(t, "blastfleet", "db", "shard", "--input", input, "--type", "nucl", "--target-shard-letters", "30", "--output", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, ", 2 shards, ") || !strings.Contains(stderr, "2 shards for a target of 30 letters per shard") {
		t.Errorf("stdout %q, stderr:\n%s", stdout, stderr)
	}
}

// TestDBShardS3 runs an Indexed Job's commands with input and output in
// MinIO, the input gzipped.
func TestDBShardS3(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb")
	m := testenv.StartMinIO(t)
	m.Setenv(t)
	m.MakeBucket(t, "work")
	ctx := context.Background()
	in, err := objstore.Open(ctx, "s3://work/in")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(tinyFASTA))
	zw.Close()
	if err := in.Put(ctx, "tiny.fa.gz", bytes.NewReader(gz.Bytes()), int64(gz.Len())); err != nil {
		t.Fatal(err)
	}
	args := []string{"db", "shard", "--input", "s3://work/in/tiny.fa.gz", "--type", "nucl", "--shards", "3", "--output", "s3://work/dbs/tiny"}
	for _, index := range []string{"2", "0", "1"} {
		if _, stderr, err := run(t, "blastfleet", append(args, "--shard-index", index)...); err != nil {
			t.Fatalf("index %s: %v\n%s", index, err, stderr)
		}
	}
	stdout, stderr, err := run(t, "blastfleet", append(args, "--finish")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := "tiny: 3 sequences, 54 letters, 3 shards, manifest s3://work/dbs/tiny/manifest.json\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	db, err := objstore.Open(ctx, "s3://work/dbs/tiny")
	if err != nil {
		t.Fatal(err)
	}
	man, err := manifest.Load(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if man.Source.Name != "tiny.fa.gz" || man.Source.Size != int64(gz.Len()) || man.Source.SHA256 != clitest.SHA256(gz.Bytes()) {
		t.Errorf("source %+v", man.Source)
	}
}

func TestDBShardFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--input", "x.fa", "--type", "dna", "--shards", "2", "--output", "o"}, "--type must be nucl or prot"},
		{[]string{"--input", "x.fa", "--type", "nucl", "--shards", "0", "--output", "o"}, "--shards must be ≥ 1"},
		{[]string{"--type", "nucl", "--shards", "1", "--output", "o"}, "--input (a FASTA) or --blastdb (a BLAST database) is required"},
		{[]string{"--input", "x.fa", "--blastdb", "d/nt", "--shards", "1", "--output", "o"}, "--input and --blastdb exclude each other"},
		{[]string{"--blastdb", "d/nt", "--shards", "2", "--shard-index", "0", "--output", "o"}, "--blastdb builds in one run"},
		{[]string{"--blastdb", "d/nt", "--type", "dna", "--shards", "1", "--output", "o"}, "--type must be nucl or prot"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := append([]string{"db", "shard"}, tc.args...)
		for i, a := range args {
			if a == "o" {
				args[i] = out
			}
		}
		testCLI.ExpectRefused(t, tc.args, args, tc.want, out)
	}
}

func TestDBShard(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb")
	dir, input := tinyInput(t)
	out := filepath.Join(dir, "db")
	stdout, stderr, err := run(t, "blastfleet", "db", "shard", "--input", input, "--type", "nucl", "--shards", "2", "--output", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	want := "tiny: 3 sequences, 54 letters, 2 shards, manifest " + filepath.Join(out, "manifest.json") + "\n"
	if stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	if !strings.Contains(stderr, "building shard 1/2") || !strings.Contains(stderr, "uploaded shard 2/2") {
		t.Errorf("off a terminal, no line per shard on stderr: %q", stderr)
	}

	// On a terminal: one bar for the shards' steps, no line for each;
	// the other lines print above it.
	_, stderr, err = testCLI.RunOnTerminal(t, "blastfleet", "db", "shard", "--input", input, "--type", "nucl", "--shards", "2", "--output", filepath.Join(dir, "db2"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if strings.Contains(stderr, "building shard") || strings.Contains(stderr, "uploaded shard") {
		t.Errorf("on a terminal, a line per shard: %q", stderr)
	}
	if !strings.Contains(stderr, "sharding (steps: each shard built, uploaded)") || !strings.Contains(stderr, "4/4") || !strings.Contains(stderr, "\r") {
		t.Errorf("on a terminal, no bar filled to its 4 steps: %q", stderr)
	}
	if !strings.Contains(stderr, "wrote "+filepath.Join(dir, "db2", "manifest.json")) {
		t.Errorf("on a terminal, the other lines are lost: %q", stderr)
	}
}

// TestDBShardVerify: --verify prints the input's sha256 alone on stdout
// (what an Argo step's outputs.result carries) and writes nothing; a
// shard run given that sum builds, one given another refuses.
func TestDBShardVerify(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb")
	dir, input := tinyInput(t)
	out := filepath.Join(dir, "db")
	shard := func(extra ...string) (string, string, error) {
		return run(t, "blastfleet", append([]string{"db", "shard", "--input", input, "--type", "nucl", "--shards", "2", "--output", out}, extra...)...)
	}
	stdout, stderr, err := shard("--verify")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	sum := sha256.Sum256([]byte(tinyFASTA))
	if want := hex.EncodeToString(sum[:]) + "\n"; stdout != want {
		t.Errorf("stdout %q, want the sha256 %q alone", stdout, want)
	}
	if es, _ := os.ReadDir(out); len(es) != 0 {
		t.Errorf("--verify wrote %d entries in the output", len(es))
	}
	if _, stderr, err := shard("--shard-index", "0", "--source-sha256", strings.TrimSpace(stdout)); err != nil {
		t.Fatalf("shard with the verified sum: %v\n%s", err, stderr)
	}
	other := strings.Repeat("ab", 32)
	if _, _, err := shard("--shard-index", "1", "--source-sha256", other); err == nil || !strings.Contains(err.Error(), "changed during the build") {
		t.Errorf("shard with another sum: %v", err)
	}
}
