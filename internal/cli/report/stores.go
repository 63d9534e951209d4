package report

import (
	"fmt"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// storeReads says, per worker of a replicated database, which stores it
// read its shards from and when it skipped one (a hot spot, or a store
// that failed): one line per worker that read from more than one store.
func storeReads(runs []runrecord.RunRecord) []string {
	var out []string
	for _, r := range runs {
		if r.Summary == nil {
			continue
		}
		for _, rk := range r.Summary.Ranks {
			if len(rk.Stores) == 0 {
				continue
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s rank %d: ", runName(&r), rk.Rank)
			for i, st := range rk.Stores {
				if i > 0 {
					b.WriteString("; ")
				}
				fmt.Fprintf(&b, "%s %s in %d pieces", st.Store, ibytes(st.Bytes), st.Pieces)
				if st.Errors > 0 {
					fmt.Fprintf(&b, ", %d failed reads", st.Errors)
				}
				if st.HedgesWon > 0 {
					fmt.Fprintf(&b, ", %d hedged pieces won", st.HedgesWon)
				}
				if st.Skips > 0 {
					fmt.Fprintf(&b, ", skipped %d times (%s)", st.Skips, strings.Join(st.SkipReasons, "; "))
				}
			}
			out = append(out, b.String())
		}
	}
	return out
}
