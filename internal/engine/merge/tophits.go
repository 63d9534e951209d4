package merge

import (
	"fmt"
	"strconv"
	"strings"
)

// TopHits says how shard groups are searched when -max_target_seqs may
// truncate. BLAST's own truncation is a heuristic that can drop hits better
// than ones it keeps (docs/concepts.md#the-correctness-contract), so a group searched with N and merged
// is not the unsharded search's top N; the modes trade that off.
type TopHits struct {
	// Auto searches with N, as BLAST does, when one group holds the whole
	// database (the output is then the unsharded search's, line for line),
	// and over-fetches with Factor otherwise.
	Auto   bool
	Exact  bool // search groups untruncated: the exact global top N
	Factor int  // overfetch: search groups with Factor x N
}

// DefaultOverfetch is the default per-shard over-fetch factor; measured at
// 99.3% recall of the exact top 50 on a real set (docs/benchmarks.md#recall-of-the-exact-top-n).
const DefaultOverfetch = 4

// ParseTopHits parses --top-hits: auto | exact | overfetch | overfetch=F.
func ParseTopHits(s string) (TopHits, error) {
	switch {
	case s == "" || s == "auto":
		return TopHits{Auto: true, Factor: DefaultOverfetch}, nil
	case s == "exact":
		return TopHits{Exact: true}, nil
	case s == "overfetch":
		return TopHits{Factor: DefaultOverfetch}, nil
	case strings.HasPrefix(s, "overfetch="):
		f, err := strconv.Atoi(strings.TrimPrefix(s, "overfetch="))
		if err != nil || f < 1 {
			return TopHits{}, fmt.Errorf("--top-hits %q: the factor must be an integer >= 1", s)
		}
		return TopHits{Factor: f}, nil
	}
	return TopHits{}, fmt.Errorf("--top-hits %q: want auto, exact, overfetch or overfetch=F", s)
}

// Arg is t as --top-hits takes it: ParseTopHits(t.Arg()) == t.
func (t TopHits) Arg() string {
	switch {
	case t.Exact:
		return "exact"
	case t.Auto:
		return "auto"
	}
	return fmt.Sprintf("overfetch=%d", t.Factor)
}

func (t TopHits) String() string {
	switch {
	case t.Exact:
		return "exact"
	case t.Auto:
		return fmt.Sprintf("auto (as BLAST with one shard group, else overfetch=%d)", t.Factor)
	}
	return fmt.Sprintf("overfetch=%d", t.Factor)
}
