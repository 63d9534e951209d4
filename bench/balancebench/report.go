package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/bench/benchrun"
	"github.com/blastfleet/blastfleet/bench/svgplot"
)

func (b *bench) report() {
	fmt.Println("## Machine")
	fmt.Println()
	for _, m := range b.machine {
		fmt.Printf("- %s\n", m)
	}
	fmt.Println()
	for _, w := range b.loads {
		b.reportWorkload(w)
	}
}

// dynamicOf returns the dynamic run at np ranks.
func dynamicOf(w *workload, np int) *run {
	for _, r := range w.runs {
		if r.Ranks == np && r.Schedule == "dynamic" {
			return r
		}
	}
	return nil
}

func (b *bench) reportWorkload(w *workload) {
	fmt.Printf("## %s\n\n", w.name)
	for _, a := range w.about {
		fmt.Printf("- %s\n", a)
	}
	if len(w.runs) > 0 {
		fmt.Printf("- command: `%s`\n", benchrun.Command(w.runs[0].Ranks, append(append([]string{}, w.args...), "--schedule", "SCHEDULE")))
	}
	fmt.Println()
	fmt.Println("Worker compute is each worker's busy time (the summary's compute phase: BLAST, or the model's time); a group is one worker. Wall is the engine's.")
	fmt.Println()
	fmt.Println("| ranks (workers) | schedule | wall (s) | / dynamic | worker compute max | mean | min | **max/mean** | output | load at start |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
	for _, r := range w.runs {
		bal := benchrun.WorkerBalance(r.Run.Summary)
		d := dynamicOf(w, r.Ranks)
		same := "same as dynamic"
		if d != nil && d.Run.SHA256 != r.Run.SHA256 {
			same = "**differs from dynamic**"
		}
		if r.Schedule == "dynamic" {
			same = fmt.Sprintf("%d bytes", r.Run.Bytes)
		}
		fmt.Printf("| %d (%d) | %s | %.2f | %.2f | %.2f | %.2f | %.2f | **%.2f** | %s | %s |\n", r.Ranks, r.Ranks-1, r.Schedule,
			r.Run.Summary.WallSeconds, r.Run.Summary.WallSeconds/d.Run.Summary.WallSeconds, bal.Max, bal.Mean, bal.Min, bal.Ratio(), same, r.Run.Load)
	}
	fmt.Println()
	fmt.Printf("Replay with %d groups of %s: static spans from scheduler.LengthSplit / WeightSplit summed per group; dynamic = each query, in order, to the group free first (scheduler.DynamicTimes).\n\n",
		b.o.replayGroups, w.costOf)
	fmt.Println("| schedule | group time max (s) | mean | min | **max/mean** |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	for _, rr := range w.replay {
		fmt.Printf("| %s | %.2f | %.2f | %.2f | **%.2f** |\n", rr.Schedule, rr.Balance.Max, rr.Balance.Mean, rr.Balance.Min, rr.Balance.Imbalance())
	}
	fmt.Println()
	var verdicts []string
	for _, r := range w.runs {
		if r.Schedule == "dynamic" {
			ratio := benchrun.WorkerBalance(r.Run.Summary).Ratio()
			met := "met"
			if ratio > 1.2 {
				met = "**not met**"
			}
			verdicts = append(verdicts, fmt.Sprintf("%d ranks: %.2f (%s)", r.Ranks, ratio, met))
		}
	}
	fmt.Printf("Target dynamic max/mean ≤ 1.2 (measured runs): %s.\n\n", strings.Join(verdicts, "; "))
}

func (b *bench) notes(w *workload) []string {
	n := []string{fmt.Sprintf("Measured %s on: %s; %s; %s.", b.started.UTC().Format("2006-01-02 15:04 UTC"),
		b.machine[0], b.machine[1], b.machine[4])}
	n = append(n, w.about...)
	if len(w.runs) > 0 {
		n = append(n, "Command: "+benchrun.Command(w.runs[0].Ranks, append(append([]string{}, w.args...), "--schedule", "SCHEDULE")))
	}
	return append(n, "Regenerate: make bench-balance.")
}

// figureName names each workload's figures (balance-NAME.svg).
var figureName = map[string]string{"BLAST, skewed synthetic": "blast-skewed", "BLAST, plast-example": "blast-plast", "simulate": "simulate"}

func (b *bench) plots() error {
	if err := os.MkdirAll(b.o.svgDir, 0o755); err != nil {
		return err
	}
	for _, w := range b.loads {
		name := figureName[w.name]
		measured := svgplot.GroupedBars{Title: w.name + ": worker compute time per schedule (engine runs)",
			YLabel: "worker compute time (s)", XLabel: "",
			Notes: b.notes(w)}
		mx, mean, mn := svgplot.Series{Name: "max", Color: 1}, svgplot.Series{Name: "mean", Color: 0}, svgplot.Series{Name: "min", Color: 2}
		for _, r := range w.runs {
			bal := benchrun.WorkerBalance(r.Run.Summary)
			measured.Categories = append(measured.Categories, fmt.Sprintf("%s\n%d ranks\nmax/mean %.2f", r.Schedule, r.Ranks, bal.Ratio()))
			mx.Y, mean.Y, mn.Y = append(mx.Y, bal.Max), append(mean.Y, bal.Mean), append(mn.Y, bal.Min)
		}
		measured.Series = []svgplot.Series{mx, mean, mn}
		replay := svgplot.GroupedBars{Title: fmt.Sprintf("%s: replay of per-query costs over %d groups", w.name, b.o.replayGroups),
			YLabel: "group time (s)", XLabel: "",
			Notes: append([]string{"Costs: " + w.costOf + "."}, b.notes(w)...)}
		mx, mean, mn = svgplot.Series{Name: "max", Color: 1}, svgplot.Series{Name: "mean", Color: 0}, svgplot.Series{Name: "min", Color: 2}
		for _, rr := range w.replay {
			name := strings.Replace(rr.Schedule, " (", "\n(", 1)
			replay.Categories = append(replay.Categories, fmt.Sprintf("%s\nmax/mean %.2f", name, rr.Balance.Imbalance()))
			mx.Y, mean.Y, mn.Y = append(mx.Y, rr.Balance.Max), append(mean.Y, rr.Balance.Mean), append(mn.Y, rr.Balance.Min)
		}
		replay.Series = []svgplot.Series{mx, mean, mn}
		for file, data := range map[string][]byte{"balance-" + name + ".svg": measured.SVG(), "balance-" + name + "-replay.svg": replay.SVG()} {
			if err := os.WriteFile(filepath.Join(b.o.svgDir, file), data, 0o644); err != nil {
				return fmt.Errorf("writing figure %s: %w", file, err)
			}
			b.logf("wrote %s", filepath.Join(b.o.svgDir, file))
		}
	}
	return nil
}
