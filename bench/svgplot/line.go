package svgplot

import (
	"fmt"
	"math"
	"strings"
)

// Series is one line: points (X[i], Y[i]).
type Series struct {
	Name   string
	X, Y   []float64
	Color  int  // palette index
	Dashed bool // e.g. the --query-sync runs
}

// LineChart is lines over a numeric x axis. With LogX the x values are
// ticked where they are (ranks 2, 4, 8, ...; speeds 0.1, 0.2, ...).
type LineChart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Series                []Series
	Notes                 []string
}

// SVG renders the chart.
func (l LineChart) SVG() []byte {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	xs := map[float64]bool{}
	for _, s := range l.Series {
		for i := range s.X {
			xlo, xhi = math.Min(xlo, s.X[i]), math.Max(xhi, s.X[i])
			ylo, yhi = math.Min(ylo, s.Y[i]), math.Max(yhi, s.Y[i])
			xs[s.X[i]] = true
		}
	}
	if math.IsInf(xlo, 0) {
		xlo, xhi, ylo, yhi = 0, 1, 0, 1
	}
	if xhi == xlo {
		xhi = xlo + 1
	}
	if l.LogY {
		ylo, yhi = ylo/1.3, yhi*1.3
	} else {
		ylo, yhi = 0, yhi*1.1
	}
	if yhi <= ylo {
		yhi = ylo + 1
	}
	right := float64(width - plotRight)
	x := axis{lo: xlo, hi: xhi, log: l.LogX, from: plotLeft + 20, to: right - 20}
	y := axis{lo: ylo, hi: yhi, log: l.LogY, from: plotTop + plotHeight, to: plotTop}
	var c canvas
	c.frame(y, l.YLabel, l.XLabel)
	// x ticks: the data's own x values on a log axis, round ones otherwise.
	var xt []float64
	if l.LogX {
		for v := range xs {
			xt = append(xt, v)
		}
	} else {
		xt = ticks(xlo, xhi, false)
	}
	for _, t := range xt {
		p := x.px(t)
		c.f(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333"/>`, p, plotTop+plotHeight, p, plotTop+plotHeight+4)
		c.text(p, plotTop+plotHeight+17, "middle", "11", label(t))
	}
	names, colors, dashed := []string{}, []string{}, []bool{}
	for _, s := range l.Series {
		var pts []string
		for i := range s.X {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x.px(s.X[i]), y.px(s.Y[i])))
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		col := color(s.Color)
		c.f(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`, strings.Join(pts, " "), col, dash)
		for i := range s.X {
			c.f(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, x.px(s.X[i]), y.px(s.Y[i]), col)
		}
		names, colors, dashed = append(names, s.Name), append(colors, col), append(dashed, s.Dashed)
	}
	c.legend(names, colors, dashed)
	return c.finish(l.Title, l.Notes)
}
