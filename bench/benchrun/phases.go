package benchrun

import "github.com/blastfleet/blastfleet/internal/storage/runrecord"

// MeanPhases is the mean time per rank in each phase, over all ranks
// (master and workers), as S3aSim's phase breakdowns report.
func MeanPhases(s *runrecord.Summary) map[string]float64 {
	m := map[string]float64{}
	if len(s.Ranks) == 0 {
		return m
	}
	for _, r := range s.Ranks {
		for _, p := range runrecord.Phases {
			m[p] += r.Phases[p]
		}
	}
	for p := range m {
		m[p] /= float64(len(s.Ranks))
	}
	return m
}

// Share is phase's share of all ranks' time.
func Share(s *runrecord.Summary, phase string) float64 {
	var in, all float64
	for _, r := range s.Ranks {
		in += r.Phases[phase]
		all += r.WallSeconds
	}
	if all == 0 {
		return 0
	}
	return in / all
}

// Balance is the workers' compute (busy) time: the Blue Gene/P paper's
// group time, a group being one worker here.
type Balance struct {
	Max, Mean, Min float64
	Times          []float64
}

// Ratio is Max/Mean (the paper: 2.3 for static splits, 1.8 dynamic).
func (b Balance) Ratio() float64 {
	if b.Mean == 0 {
		return 0
	}
	return b.Max / b.Mean
}

// WorkerBalance gathers the workers' compute times.
func WorkerBalance(s *runrecord.Summary) Balance {
	var b Balance
	for _, r := range s.Ranks {
		if r.Role != "worker" {
			continue
		}
		t := r.Phases["compute"]
		if len(b.Times) == 0 || t > b.Max {
			b.Max = t
		}
		if len(b.Times) == 0 || t < b.Min {
			b.Min = t
		}
		b.Times = append(b.Times, t)
		b.Mean += t
	}
	if len(b.Times) > 0 {
		b.Mean /= float64(len(b.Times))
	}
	return b
}
