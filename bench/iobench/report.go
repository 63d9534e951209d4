package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blastfleet/blastfleet/bench/benchrun"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// short names the strategies in table headers.
var short = map[string]string{"worker-merge": "WM", "worker-individual": "WI", "worker-collective": "WC", "master-writing": "MW"}

func syncName(sync bool) string {
	if sync {
		return "sync (--query-sync)"
	}
	return "no-sync"
}

// find returns the run of a suite point, or nil.
func (b *bench) find(suite, strategy string, sync bool, np int, speed float64) *point {
	for _, p := range b.points {
		if p.Suite == suite && p.Strategy == strategy && p.Sync == sync && p.Ranks == np && p.Speed == speed {
			return p
		}
	}
	return nil
}

func (b *bench) report() {
	fmt.Println("## Machine")
	fmt.Println()
	for _, m := range b.machine {
		fmt.Printf("- %s\n", m)
	}
	fmt.Println()
	fmt.Println("## Workload")
	fmt.Println()
	fmt.Printf("Every run: `%s` (with `--query-sync` for the sync runs, `--sim-speed S` in the sweep); seed %d.\n\n",
		benchrun.Command(0, b.args("STRATEGY", false, 1)), b.o.seed)
	b.reportOutputs()
	if b.find("ranks", strategies[0], false, b.o.ranks[0], 1) != nil {
		for _, sync := range []bool{false, true} {
			b.reportRanks(sync)
		}
		for _, sync := range []bool{false, true} {
			b.reportPhases(sync)
		}
	}
	if b.find("speed", strategies[0], false, b.o.speedRanks, b.o.speeds[0]) != nil {
		b.reportSpeeds(false)
		if b.o.speedSync {
			b.reportSpeeds(true)
		}
	}
	if b.find("mbs", strategies[0], false, b.o.mbsRanks[0], 1) != nil {
		b.reportMBS()
	}
	b.reportTargets()
}

// reportOutputs checks that every run wrote the same bytes.
func (b *bench) reportOutputs() {
	hashes := map[string]int{}
	var size int64
	for _, p := range b.points {
		hashes[p.Run.SHA256]++
		size = p.Run.Bytes
	}
	if len(hashes) == 1 {
		for h := range hashes {
			fmt.Printf("All %d runs wrote the same %d bytes (SHA-256 %.16s…), whatever the strategy, ranks, speed, sync and write buffer.\n\n", len(b.points), size, h)
		}
		return
	}
	fmt.Printf("**Outputs differ**: %d distinct outputs over %d runs.\n\n", len(hashes), len(b.points))
}

// walls prints, per rank count, each strategy's engine wall time and its
// ratio to worker-merge's.
func (b *bench) reportRanks(sync bool) {
	fmt.Printf("### Strategies x ranks, %s: engine wall time (s)\n\n", syncName(sync))
	fmt.Println("Engine wall is the master's, from its start to the output's rename (mpirun's start-up of the ranks excluded; the process wall, with it, is in parentheses). Ratios are to WorkerMerge's engine wall.")
	fmt.Println()
	fmt.Print("| ranks |")
	for _, s := range strategies {
		fmt.Printf(" %s (%s) |", s, short[s])
	}
	fmt.Println(" fastest | WI/WM | WC/WM | MW/WM | load at start |")
	fmt.Println("| ---: |" + strings.Repeat(" ---: |", len(strategies)) + " --- | ---: | ---: | ---: | --- |")
	for _, np := range b.o.ranks {
		fmt.Printf("| %d |", np)
		walls := map[string]float64{}
		load := ""
		for _, s := range strategies {
			p := b.find("ranks", s, sync, np, 1)
			if p == nil {
				fmt.Print(" — |")
				continue
			}
			walls[s] = p.Run.Summary.WallSeconds
			fmt.Printf(" %.2f (%.2f) |", p.Run.Summary.WallSeconds, p.Run.Wall)
			if s == strategies[0] {
				load = p.Run.Load
			}
		}
		fmt.Printf(" %s |", fastest(walls))
		for _, s := range strategies[1:] {
			fmt.Printf(" %s |", ratio(walls[s], walls["worker-merge"]))
		}
		fmt.Printf(" %s |\n", load)
	}
	fmt.Println()
}

func fastest(walls map[string]float64) string {
	best, bw := "", 0.0
	for _, s := range strategies {
		if w, ok := walls[s]; ok && (best == "" || w < bw) {
			best, bw = s, w
		}
	}
	return short[best]
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// reportPhases prints each run's mean time per rank in each phase.
func (b *bench) reportPhases(sync bool) {
	fmt.Printf("### Phase breakdown, %s: mean seconds per rank (master and workers)\n\n", syncName(sync))
	fmt.Print("| ranks | strategy | wall |")
	for _, ph := range runrecord.Phases {
		fmt.Printf(" %s |", ph)
	}
	fmt.Println(" master merge+send | write share | worker compute max/mean |")
	fmt.Println("| ---: | --- | ---: |" + strings.Repeat(" ---: |", len(runrecord.Phases)) + " ---: | ---: | ---: |")
	for _, np := range b.o.ranks {
		for _, s := range strategies {
			p := b.find("ranks", s, sync, np, 1)
			if p == nil {
				continue
			}
			m := benchrun.MeanPhases(p.Run.Summary)
			fmt.Printf("| %d | %s | %.2f |", np, short[s], p.Run.Summary.WallSeconds)
			for _, ph := range runrecord.Phases {
				fmt.Printf(" %.3f |", m[ph])
			}
			fmt.Printf(" %.3f | %.4f%% | %.2f |\n", masterMerge(p), 100*p.Run.Summary.WriteShare, p.Run.Summary.ComputeImbalance)
		}
	}
	fmt.Println()
}

// reportMBS prints the strategies with the default write buffer: blocks
// of several queries, so far fewer writes (and messages) per run.
func (b *bench) reportMBS() {
	fmt.Printf("### Strategies with --write-buffer %s (the default MBS), no-sync: engine wall time (s)\n\n", b.o.mbs)
	fmt.Print("| ranks |")
	for _, s := range strategies {
		fmt.Printf(" %s |", short[s])
	}
	fmt.Println(" fastest | WI/WM | WC/WM | MW/WM | WM writes | WM master merge+send s | WM write share |")
	fmt.Println("| ---: |" + strings.Repeat(" ---: |", len(strategies)) + " --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, np := range b.o.mbsRanks {
		walls := map[string]float64{}
		var wm *point
		for _, s := range strategies {
			if p := b.find("mbs", s, false, np, 1); p != nil {
				walls[s] = p.Run.Summary.WallSeconds
				if s == "worker-merge" {
					wm = p
				}
			}
		}
		fmt.Printf("| %d |", np)
		for _, s := range strategies {
			fmt.Printf(" %.2f |", walls[s])
		}
		fmt.Printf(" %s |", fastest(walls))
		for _, s := range strategies[1:] {
			fmt.Printf(" %s |", ratio(walls[s], walls["worker-merge"]))
		}
		if wm != nil {
			fmt.Printf(" %d | %.3f | %.4f%% |", writes(wm), masterMerge(wm), 100*wm.Run.Summary.WriteShare)
		}
		fmt.Println()
	}
	fmt.Println()
}

// writes counts the run's writes (blocks, or a block's parts) over all
// ranks.
func writes(p *point) int {
	n := 0
	for _, r := range p.Run.Summary.Ranks {
		n += r.BlocksWritten
	}
	return n
}

// masterMerge is the master's merge phase: merging and, for every block,
// sending the strategy's orders to the workers.
func masterMerge(p *point) float64 {
	for _, r := range p.Run.Summary.Ranks {
		if r.Rank == 0 {
			return r.Phases["merge"]
		}
	}
	return 0
}

func (b *bench) reportSpeeds(sync bool) {
	fmt.Printf("### Compute-speed sweep at %d ranks, %s: engine wall time (s)\n\n", b.o.speedRanks, syncName(sync))
	fmt.Print("| speed | worker compute s (mean) |")
	for _, s := range strategies {
		fmt.Printf(" %s |", short[s])
	}
	fmt.Println(" fastest | WI/WM | WC/WM | MW/WM |")
	fmt.Println("| ---: | ---: |" + strings.Repeat(" ---: |", len(strategies)) + " --- | ---: | ---: | ---: |")
	for _, sp := range b.o.speeds {
		walls := map[string]float64{}
		compute := 0.0
		for _, s := range strategies {
			if p := b.find("speed", s, sync, b.o.speedRanks, sp); p != nil {
				walls[s] = p.Run.Summary.WallSeconds
				if s == strategies[0] {
					compute = benchrun.WorkerBalance(p.Run.Summary).Mean
				}
			}
		}
		fmt.Printf("| %g | %.2f |", sp, compute)
		for _, s := range strategies {
			fmt.Printf(" %.2f |", walls[s])
		}
		fmt.Printf(" %s |", fastest(walls))
		for _, s := range strategies[1:] {
			fmt.Printf(" %s |", ratio(walls[s], walls["worker-merge"]))
		}
		fmt.Println()
	}
	fmt.Println()
}

// reportTargets sets the runs against issue 8's targets.
func (b *bench) reportTargets() {
	fmt.Println("### Against the targets (this run)")
	fmt.Println()
	for _, sync := range []bool{false, true} {
		var won, lost []string
		for _, np := range b.o.ranks {
			if np < 16 {
				continue
			}
			walls := map[string]float64{}
			for _, s := range strategies {
				if p := b.find("ranks", s, sync, np, 1); p != nil {
					walls[s] = p.Run.Summary.WallSeconds
				}
			}
			if len(walls) == 0 {
				continue
			}
			f := fastest(walls)
			if f == "WM" {
				won = append(won, fmt.Sprint(np))
				continue
			}
			var full string
			for s, n := range short {
				if n == f {
					full = s
				}
			}
			lost = append(lost, fmt.Sprintf("%d (%s %.2f s, WM %.2f s: WM %+.1f%%)", np, f, walls[full], walls["worker-merge"],
				100*(walls["worker-merge"]/walls[full]-1)))
		}
		fmt.Printf("- WorkerMerge fastest at 16 ranks and above, %s: fastest at %s; not at %s\n",
			syncName(sync), list(won), list(lost))
	}
	if b.find("mbs", strategies[0], false, b.o.mbsRanks[0], 1) != nil {
		var won, lost []string
		for _, np := range b.o.mbsRanks {
			walls := map[string]float64{}
			for _, s := range strategies {
				if p := b.find("mbs", s, false, np, 1); p != nil {
					walls[s] = p.Run.Summary.WallSeconds
				}
			}
			if f := fastest(walls); f == "WM" {
				won = append(won, fmt.Sprint(np))
			} else {
				lost = append(lost, fmt.Sprintf("%d (%s)", np, f))
			}
		}
		fmt.Printf("- WorkerMerge fastest with --write-buffer %s, no-sync: fastest at %s; not at %s\n", b.o.mbs, list(won), list(lost))
	}
	var shares []float64
	worst := ""
	for _, p := range b.points {
		if p.Strategy == "worker-merge" {
			shares = append(shares, p.Run.Summary.WriteShare)
			if p.Run.Summary.WriteShare >= maxOf(shares) {
				worst = fmt.Sprintf("%s, %d ranks, speed %g, %s", p.Suite, p.Ranks, p.Speed, syncName(p.Sync))
			}
		}
	}
	if len(shares) > 0 {
		sort.Float64s(shares)
		fmt.Printf("- WorkerMerge write share under 1%%: %.4f%% to %.4f%% over its %d runs (largest: %s)\n",
			100*shares[0], 100*shares[len(shares)-1], len(shares), worst)
	}
	fmt.Println()
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
