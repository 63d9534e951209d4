package svgplot

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Bar is one stacked bar: Values[i] is segment i's height. Bars of one
// Group stand together; a gap separates groups, whose name is written
// under them.
type Bar struct {
	Label  string
	Group  string
	Values []float64
}

// StackedBars is bars cut into segments (e.g. the phases of a run).
type StackedBars struct {
	Title, YLabel, XLabel string
	Segments              []string // names, bottom first
	Bars                  []Bar
	Notes                 []string
}

// SVG renders the chart.
func (s StackedBars) SVG() []byte {
	top := 0.0
	for _, b := range s.Bars {
		var sum float64
		for _, v := range b.Values {
			sum += v
		}
		top = math.Max(top, sum)
	}
	if top == 0 {
		top = 1
	}
	y := axis{lo: 0, hi: top * 1.08, from: plotTop + plotHeight, to: plotTop}
	var c canvas
	c.frame(y, s.YLabel, s.XLabel)
	slots := len(s.Bars)
	for i := 1; i < len(s.Bars); i++ {
		if s.Bars[i].Group != s.Bars[i-1].Group {
			slots++ // a gap between groups
		}
	}
	right := float64(width - plotRight)
	slot := (right - plotLeft - 10) / float64(max(slots, 1))
	x := float64(plotLeft + 5)
	groupStart := x
	for i, b := range s.Bars {
		if i > 0 && b.Group != s.Bars[i-1].Group {
			c.text((groupStart+x)/2, plotTop+plotHeight+40, "middle", "11", s.Bars[i-1].Group)
			x += slot
			groupStart = x
		}
		base := 0.0
		for k, v := range b.Values {
			y0, y1 := y.px(base), y.px(base+v)
			c.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x+1, y1, slot-2, y0-y1, color(k))
			base += v
		}
		c.f(`<text x="%.1f" y="%d" text-anchor="end" font-size="9" transform="rotate(-60 %.1f %d)">%s</text>`,
			x+slot/2+3, plotTop+plotHeight+8, x+slot/2+3, plotTop+plotHeight+8, html.EscapeString(b.Label))
		x += slot
	}
	if n := len(s.Bars); n > 0 {
		c.text((groupStart+x)/2, plotTop+plotHeight+40, "middle", "11", s.Bars[n-1].Group)
	}
	colors := make([]string, len(s.Segments))
	for i := range colors {
		colors[i] = color(i)
	}
	c.legend(s.Segments, colors, nil)
	return c.finish(s.Title, s.Notes)
}

// GroupedBars is, per category, one bar per series side by side (e.g. per
// schedule the maximum, mean and minimum worker time). A category name may
// hold "\n" to break it over lines under the axis.
type GroupedBars struct {
	Title, YLabel, XLabel string
	Categories            []string
	Series                []Series // Y[i] is the value for Categories[i]; X is unused
	Notes                 []string
}

// SVG renders the chart.
func (g GroupedBars) SVG() []byte {
	top := 0.0
	for _, s := range g.Series {
		for _, v := range s.Y {
			top = math.Max(top, v)
		}
	}
	if top == 0 {
		top = 1
	}
	y := axis{lo: 0, hi: top * 1.12, from: plotTop + plotHeight, to: plotTop}
	var c canvas
	c.frame(y, g.YLabel, g.XLabel)
	right := float64(width - plotRight)
	cat := (right - plotLeft) / float64(max(len(g.Categories), 1))
	bar := cat * 0.8 / float64(max(len(g.Series), 1))
	for i, name := range g.Categories {
		x0 := plotLeft + float64(i)*cat + cat*0.1
		for k, s := range g.Series {
			if i >= len(s.Y) {
				continue
			}
			v := s.Y[i]
			y1 := y.px(v)
			x := x0 + float64(k)*bar
			c.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x, y1, bar-2, y.px(0)-y1, color(s.Color))
			c.text(x+bar/2-1, y1-3, "middle", "9", valueLabel(v))
		}
		// A category's name may hold line breaks: one line each.
		for k, line := range strings.Split(name, "\n") {
			c.text(plotLeft+float64(i)*cat+cat/2, float64(plotTop+plotHeight+14+12*k), "middle", "10", line)
		}
	}
	names, colors := []string{}, []string{}
	for _, s := range g.Series {
		names, colors = append(names, s.Name), append(colors, color(s.Color))
	}
	c.legend(names, colors, nil)
	return c.finish(g.Title, g.Notes)
}

// valueLabel prints a bar's value: two decimals for small values (ratios,
// seconds), none for large ones.
func valueLabel(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
