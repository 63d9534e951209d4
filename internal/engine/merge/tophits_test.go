package merge

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseTopHits(t *testing.T) {
	tests := []struct {
		in     string
		want   TopHits
		string string
	}{
		{"", TopHits{Auto: true, Factor: DefaultOverfetch}, fmt.Sprintf("auto (as BLAST with one shard group, else overfetch=%d)", DefaultOverfetch)},
		{"auto", TopHits{Auto: true, Factor: DefaultOverfetch}, fmt.Sprintf("auto (as BLAST with one shard group, else overfetch=%d)", DefaultOverfetch)},
		{"exact", TopHits{Exact: true}, "exact"},
		{"overfetch", TopHits{Factor: DefaultOverfetch}, fmt.Sprintf("overfetch=%d", DefaultOverfetch)},
		{"overfetch=1", TopHits{Factor: 1}, "overfetch=1"},
		{"overfetch=10", TopHits{Factor: 10}, "overfetch=10"},
	}
	for _, tt := range tests {
		got, err := ParseTopHits(tt.in)
		if err != nil {
			t.Errorf("ParseTopHits(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseTopHits(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if s := got.String(); s != tt.string {
			t.Errorf("ParseTopHits(%q).String() = %q, want %q", tt.in, s, tt.string)
		}
	}
	for _, bad := range []string{"overfetch=0", "overfetch=-1", "overfetch=x", "overfetch=", "Exact", "top", "overfetch=2.5"} {
		if got, err := ParseTopHits(bad); err == nil {
			t.Errorf("ParseTopHits(%q) = %+v, want an error", bad, got)
		} else if !strings.Contains(err.Error(), "--top-hits") {
			t.Errorf("ParseTopHits(%q) error %q does not name the flag", bad, err)
		}
	}
}
