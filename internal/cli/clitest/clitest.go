// Package clitest runs the CLI's commands in-process for the tests of
// cmd/blastfleet and of the command groups' packages below internal/cli,
// and holds the fixtures more than one of them uses.
package clitest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// NewRoot builds a fresh command tree for one run, as run as binary: a
// group's commands on cli.NewRoot's root, or cmd/blastfleet's whole tree.
type NewRoot func(binary string) *cobra.Command

// Group is the tree of cli.NewRoot with the commands add adds to it.
func Group(add func(root *cobra.Command, opts *cli.Options)) NewRoot {
	return func(binary string) *cobra.Command {
		root, opts := cli.NewRoot(binary)
		add(root, opts)
		return root
	}
}

// Run runs args on a fresh tree, in-process, and returns what it wrote.
func (n NewRoot) Run(t *testing.T, binary string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := n(binary)
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

// ExpectRefused runs args and checks they fail with want, without a
// usage dump and without creating out; label names the case.
func (n NewRoot) ExpectRefused(t *testing.T, label any, args []string, want, out string) {
	t.Helper()
	_, stderr, err := n.Run(t, "blastfleet", args...)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v: err = %v, want %q", label, err, want)
	}
	if strings.Contains(stderr, "Usage:") {
		t.Errorf("%v: usage dumped for a validation error", label)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%v: output created despite invalid flags", label)
	}
}

// WriteFile writes data to path or fails the test.
func WriteFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// SHA256 is data's SHA-256 in hex.
func SHA256(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// RunRecord is a finished run record of a master and one worker.
func RunRecord(holder, partition string) *runrecord.RunRecord {
	start := time.Now().Add(-time.Minute).UTC()
	ranks := []runrecord.RankSummary{
		{Rank: 0, Role: "master", Started: start, WallSeconds: 30, Phases: map[string]float64{"setup": 1, "distribution": 29},
			Timeline: []runrecord.Interval{{Phase: "setup", Start: 0, End: 1}, {Phase: "distribution", Start: 1, End: 30}}},
		{Rank: 1, Role: "worker", Started: start, WallSeconds: 30, Phases: map[string]float64{"setup": 2, "compute": 28},
			Timeline: []runrecord.Interval{{Phase: "setup", Start: 0, End: 2}, {Phase: "compute", Start: 2, End: 30}}},
	}
	return &runrecord.RunRecord{Holder: holder, Partition: partition, State: runrecord.RunComplete, Started: start, Updated: start.Add(30 * time.Second),
		Summary: &runrecord.Summary{Program: "blastn", Started: start, WallSeconds: 30, Tasks: 3, Ranks: ranks}}
}

// TerminalBuffer is a buffer that says it is a terminal (cli.Terminal),
// for what commands show only on one: progress bars.
type TerminalBuffer struct{ bytes.Buffer }

func (*TerminalBuffer) IsTerminal() bool { return true }

// RunOnTerminal is Run with standard error a terminal.
func (n NewRoot) RunOnTerminal(t *testing.T, binary string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := n(binary)
	var out bytes.Buffer
	var errb TerminalBuffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}
