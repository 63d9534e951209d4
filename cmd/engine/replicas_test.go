package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/engine"
)

// parse runs the engine's command line up to its Config.
func parse(args ...string) (*engine.Config, error) {
	var f flags
	cmd := newCommand(&f)
	var cfg *engine.Config
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		f.changed = cmd.Flags().Changed
		var err error
		cfg, err = config(cmd.Context(), &f, 0, logr.Discard())
		return err
	}
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cfg, cmd.ExecuteContext(context.Background())
}

// --database-replica is repeatable, kept in order (the N-th reads
// BLASTFLEET_REPLICA<N>_*), and refused repeated or under simulate.
func TestDatabaseReplicaFlag(t *testing.T) {
	base := []string{"--database", "db", "--queries", "q.fa", "--program", "blastp", "--output", "o.tsv"}
	cfg, err := parse(append(base, "--database-replica", "s3://eu/db", "--database-replica", "/data/db")...)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"s3://eu/db", "/data/db"}; !slices.Equal(cfg.DatabaseReplicas, want) {
		t.Errorf("replicas %q, want %q", cfg.DatabaseReplicas, want)
	}
	if cfg, err := parse(base...); err != nil || len(cfg.DatabaseReplicas) != 0 {
		t.Errorf("no flag: %v %v", cfg, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(base, "--database-replica", "s3://eu/db", "--database-replica", "s3://eu/db"), "--database-replica s3://eu/db is given twice"},
		{append(base, "--database-replica", " "), "--database-replica must not be empty"},
		{[]string{"--backend", "simulate", "--sim-queries", "10", "--output", "o.tsv", "--database-replica", "s3://eu/db"}, "--database-replica cannot be used with --backend simulate"},
	} {
		if _, err := parse(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
