package engine

import (
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

func TestCompositionStats(t *testing.T) {
	for _, c := range []struct {
		opts []blast.Option
		want bool
	}{
		{nil, true}, // blastp's, blastx's and tblastn's default: 2
		{[]blast.Option{{Name: "comp_based_stats", Value: "0"}}, false},
		{[]blast.Option{{Name: "comp_based_stats", Value: "F"}}, false},
		{[]blast.Option{{Name: "comp_based_stats", Value: "1"}}, true},
		{[]blast.Option{{Name: "matrix", Value: "BLOSUM45"}, {Name: "comp_based_stats", Value: "D"}}, true},
	} {
		if got := compositionStats(c.opts); got != c.want {
			t.Errorf("%v: %v, want %v", c.opts, got, c.want)
		}
	}
}
