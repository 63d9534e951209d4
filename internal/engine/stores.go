package engine

import (
	"github.com/blastfleet/blastfleet/internal/storage/replica"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// storeReads is what a worker read from each store of a replicated
// database, for its summary (nil when it read one store).
func storeReads(s *replica.Set) []runrecord.StoreReads {
	if s == nil {
		return nil
	}
	var out []runrecord.StoreReads
	for _, st := range s.Stats() {
		r := runrecord.StoreReads{Store: st.Name, Bytes: st.Bytes, Pieces: st.Pieces, Errors: st.Errors,
			Skips: st.SkipCount, HedgesWon: st.HedgesWon, BusySeconds: st.Busy.Seconds(), State: st.State}
		for _, sk := range st.Skips {
			r.SkipReasons = append(r.SkipReasons, sk.At.UTC().Format("15:04:05")+" "+sk.Why)
		}
		out = append(out, r)
	}
	return out
}
