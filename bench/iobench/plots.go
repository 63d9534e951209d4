package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/blastfleet/blastfleet/bench/benchrun"
	"github.com/blastfleet/blastfleet/bench/svgplot"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// notes are every figure's caption: machine, command, seed.
func (b *bench) notes(extra ...string) []string {
	n := []string{fmt.Sprintf("Measured %s on: %s; %s; %s.", b.started.UTC().Format("2006-01-02 15:04 UTC"),
		b.machine[0], b.machine[1], b.machine[4])}
	n = append(n, extra...)
	n = append(n, "Command: "+benchrun.Command(0, b.args("STRATEGY", false, 1))+" (--query-sync for the sync runs; --sim-speed S in the sweep).",
		fmt.Sprintf("Seed %d: every run wrote the same output. Regenerate: make bench-io.", b.o.seed))
	return n
}

func (b *bench) plots() error {
	if err := os.MkdirAll(b.o.svgDir, 0o755); err != nil {
		return err
	}
	figs := map[string][]byte{}
	if b.find("ranks", strategies[0], false, b.o.ranks[0], 1) != nil {
		figs["io-ranks-wall.svg"] = b.ranksWall()
		figs["io-ranks-phases-nosync.svg"] = b.ranksPhases(false)
		figs["io-ranks-phases-sync.svg"] = b.ranksPhases(true)
	}
	if b.find("speed", strategies[0], false, b.o.speedRanks, b.o.speeds[0]) != nil {
		figs["io-speed-wall.svg"] = b.speedWall()
	}
	for name, data := range figs {
		if err := os.WriteFile(filepath.Join(b.o.svgDir, name), data, 0o644); err != nil {
			return fmt.Errorf("writing figure %s: %w", name, err)
		}
		b.logf("wrote %s", filepath.Join(b.o.svgDir, name))
	}
	return nil
}

func (b *bench) ranksWall() []byte {
	c := svgplot.LineChart{Title: "Output strategies x ranks (simulate backend): engine wall time",
		XLabel: "ranks (1 master + workers), oversubscribed on the machine's cores", YLabel: "engine wall time (s, log)",
		LogX: true, LogY: true,
		Notes: b.notes("Solid: no-sync; dashed: --query-sync (S3aSim's forced synchronisation after each query's I/O).")}
	for _, sync := range []bool{false, true} {
		for i, s := range strategies {
			sr := svgplot.Series{Name: short[s] + map[bool]string{false: "", true: " sync"}[sync], Color: i, Dashed: sync}
			for _, np := range b.o.ranks {
				if p := b.find("ranks", s, sync, np, 1); p != nil {
					sr.X, sr.Y = append(sr.X, float64(np)), append(sr.Y, p.Run.Summary.WallSeconds)
				}
			}
			c.Series = append(c.Series, sr)
		}
	}
	return c.SVG()
}

func (b *bench) ranksPhases(sync bool) []byte {
	c := svgplot.StackedBars{Title: "Phase breakdown, " + syncName(sync) + ": mean seconds per rank",
		YLabel: "seconds per rank (mean over all ranks)", XLabel: "ranks", Segments: runrecord.Phases,
		Notes: b.notes("Bars per rank count: WM worker-merge, WI worker-individual, WC worker-collective, MW master-writing.")}
	for _, np := range b.o.ranks {
		for _, s := range strategies {
			p := b.find("ranks", s, sync, np, 1)
			if p == nil {
				continue
			}
			m := benchrun.MeanPhases(p.Run.Summary)
			bar := svgplot.Bar{Label: short[s], Group: fmt.Sprint(np)}
			for _, ph := range runrecord.Phases {
				bar.Values = append(bar.Values, m[ph])
			}
			c.Bars = append(c.Bars, bar)
		}
	}
	return c.SVG()
}

func (b *bench) speedWall() []byte {
	c := svgplot.LineChart{Title: fmt.Sprintf("Compute-speed sweep at %d ranks (simulate backend): engine wall time", b.o.speedRanks),
		XLabel: "compute speed (task compute time divided by it)", YLabel: "engine wall time (s, log)", LogX: true, LogY: true,
		Notes: b.notes()}
	if b.o.speedSync {
		c.Notes = b.notes("Solid: no-sync; dashed: --query-sync.")
	}
	for _, sync := range []bool{false, true} {
		for i, s := range strategies {
			sr := svgplot.Series{Name: short[s] + map[bool]string{false: "", true: " sync"}[sync], Color: i, Dashed: sync}
			for _, sp := range b.o.speeds {
				if p := b.find("speed", s, sync, b.o.speedRanks, sp); p != nil {
					sr.X, sr.Y = append(sr.X, sp), append(sr.Y, p.Run.Summary.WallSeconds)
				}
			}
			if len(sr.X) > 0 {
				c.Series = append(c.Series, sr)
			}
		}
	}
	return c.SVG()
}
