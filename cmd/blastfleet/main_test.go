package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/cli/clitest"
	"github.com/blastfleet/blastfleet/internal/testenv"
)

// testCLI is the whole command tree, as main runs it.
var testCLI = clitest.NewRoot(newRootCmd)

func run(t *testing.T, binary string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return testCLI.Run(t, binary, args...)
}

func TestVersion(t *testing.T) {
	out, _, err := run(t, "blastfleet", "version")
	if err != nil || !strings.HasPrefix(out, "blastfleet ") {
		t.Errorf("version: %q, %v", out, err)
	}
}

func TestKubectlPluginName(t *testing.T) {
	out, _, err := run(t, "kubectl-blastfleet", "--help")
	if err != nil || !strings.Contains(out, "kubectl blastfleet [command]") {
		t.Errorf("help as kubectl plugin: %v\n%s", err, out)
	}
}

func TestDBShardFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--input", "x.fa", "--type", "dna", "--shards", "2", "--output", "o"}, "--type must be nucl or prot"},
		{[]string{"--input", "x.fa", "--type", "nucl", "--shards", "0", "--output", "o"}, "--shards must be ≥ 1"},
		{[]string{"--type", "nucl", "--shards", "1"}, `"input"`},
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
	if !strings.Contains(stderr, "building shard") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
}
