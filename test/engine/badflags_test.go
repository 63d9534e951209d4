package engine_e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBadFlagCombinations: flags that cannot mean what they say under the
// chosen backend or schedule fail at once, naming the flag, and write
// nothing.
func TestBadFlagCombinations(t *testing.T) {
	b := bins(t)
	q := filepath.Join(t.TempDir(), "q.fa")
	writeFile(t, q, []byte(">q1\nACGTACGTAC\n"))
	cases := []struct {
		name  string
		args  []string
		wants []string
	}{
		{"unknown backend", []string{"--backend", "plast", "--database", "db", "--queries", q, "--program", "blastn"},
			[]string{`--backend "plast"`, "blast, simulate"}},
		{"sim flag with blast", []string{"--database", "db", "--queries", q, "--program", "blastn", "--sim-seed", "3"},
			[]string{"--sim-seed", "--backend simulate"}},
		{"sim speed with blast", []string{"--backend", "blast", "--database", "db", "--queries", q, "--program", "blastn", "--sim-speed", "2"},
			[]string{"--sim-speed", "--backend simulate"}},
		{"database with simulate", []string{"--backend", "simulate", "--database", "db", "--sim-queries", "5"},
			[]string{"--database", "--backend simulate"}},
		{"blast option with simulate", []string{"--backend", "simulate", "--sim-queries", "5", "--blast-option=-word_size=11"},
			[]string{"--blast-option", "--backend simulate"}},
		{"cache bytes with simulate", []string{"--backend", "simulate", "--sim-queries", "5", "--cache-bytes", "1GiB"},
			[]string{"--cache-bytes", "--backend simulate"}},
		{"no queries", []string{"--backend", "simulate"},
			[]string{"--queries", "--sim-queries"}},
		{"both queries", []string{"--backend", "simulate", "--sim-queries", "5", "--queries", q},
			[]string{"--sim-queries", "--queries"}},
		{"zero queries", []string{"--backend", "simulate", "--sim-queries", "0"},
			[]string{"--sim-queries 0"}},
		{"sim queries in a campaign", []string{"--backend", "simulate", "--sim-queries", "5", "--campaign", t.TempDir()},
			[]string{"--sim-queries", "--campaign"}},
		{"zero speed", []string{"--backend", "simulate", "--sim-queries", "5", "--sim-speed", "0"},
			[]string{"--sim-speed 0"}},
		{"negative startup", []string{"--backend", "simulate", "--sim-queries", "5", "--sim-startup", "-1"},
			[]string{"--sim-startup -1"}},
		{"fewer subjects than shards", []string{"--backend", "simulate", "--sim-queries", "5", "--sim-shards", "10", "--sim-subjects", "4"},
			[]string{"--sim-subjects 4", "--sim-shards 10"}},
		{"bad histogram", []string{"--backend", "simulate", "--sim-queries", "5", "--sim-query-sizes", "500-100"},
			[]string{"--sim-query-sizes", "below min"}},
		{"zero-length queries", []string{"--backend", "simulate", "--sim-queries", "5", "--sim-query-sizes", "0-100"},
			[]string{"--sim-query-sizes", "at least 1"}},
		{"bad spend", []string{"--backend", "simulate", "--sim-queries", "5", "--sim-spend", "nap"},
			[]string{"--sim-spend", "sleep or busy"}},
		{"column not simulated", []string{"--backend", "simulate", "--sim-queries", "5", "--outfmt", "6 qseqid sseq"},
			[]string{"--outfmt", `"sseq"`, "not simulated"}},
		{"unknown schedule", []string{"--backend", "simulate", "--sim-queries", "5", "--schedule", "round-robin"},
			[]string{`--schedule "round-robin"`, "length-split", "weight-split"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.tsv")
			r := run(t, 20*time.Second, nil, append([]string{b.engine, "--output", out, "--workers", "2"}, c.args...)...)
			if r.exitCode == 0 {
				t.Fatalf("exit 0, want an error\n%s", r)
			}
			for _, w := range c.wants {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("error lacks %q\n%s", w, r)
				}
			}
			noOutputLeft(t, out)
		})
	}
}
