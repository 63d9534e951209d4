// Package svgplot draws the benchmarks' figures as plain SVG: line charts
// and bar charts (stacked or grouped), with a caption block under the plot
// for the machine, the command and the seed. No plotting tool is needed to
// regenerate docs/benchmarks' figures.
package svgplot

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strings"
)

// Palette holds the series colours, in order.
var Palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

const (
	width      = 760
	plotLeft   = 70
	plotRight  = 190 // room for the legend
	plotTop    = 40
	plotHeight = 300
	lineHeight = 15
)

// canvas accumulates SVG elements.
type canvas struct{ b bytes.Buffer }

func (c *canvas) f(format string, args ...any) {
	fmt.Fprintf(&c.b, format, args...)
	c.b.WriteByte('\n')
}

func (c *canvas) text(x, y float64, anchor, size, s string) {
	c.f(`<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%s">%s</text>`, x, y, anchor, size, html.EscapeString(s))
}

// finish wraps the elements in an <svg> of the given height, with the
// title on top and the notes (one per line) under the plot.
func (c *canvas) finish(title string, notes []string) []byte {
	top := float64(plotTop + plotHeight + 72)
	var wrapped []string
	for _, n := range notes {
		wrapped = append(wrapped, wrap(n, 120)...)
	}
	height := int(top) + lineHeight*len(wrapped) + 10
	var out bytes.Buffer
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">`+"\n", width, height, width, height)
	fmt.Fprintf(&out, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&out, `<text x="%d" y="22" text-anchor="middle" font-size="15" font-weight="bold">%s</text>`+"\n", width/2, html.EscapeString(title))
	out.Write(c.b.Bytes())
	for i, n := range wrapped {
		fmt.Fprintf(&out, `<text x="10" y="%.0f" font-size="10" fill="#444">%s</text>`+"\n", top+float64(i*lineHeight), html.EscapeString(n))
	}
	out.WriteString("</svg>\n")
	return out.Bytes()
}

// wrap cuts s into lines of at most n characters at spaces.
func wrap(s string, n int) []string {
	var lines []string
	for len(s) > n {
		i := strings.LastIndex(s[:n], " ")
		if i <= 0 {
			i = n
		}
		lines = append(lines, s[:i])
		s = strings.TrimLeft(s[i:], " ")
	}
	return append(lines, s)
}

// axis maps data values to pixels, linearly or on a log scale.
type axis struct {
	lo, hi   float64
	log      bool
	from, to float64 // pixels
}

func (a axis) px(v float64) float64 {
	if a.log {
		v, lo, hi := math.Log(math.Max(v, a.lo)), math.Log(a.lo), math.Log(a.hi)
		return a.from + (v-lo)/(hi-lo)*(a.to-a.from)
	}
	return a.from + (v-a.lo)/(a.hi-a.lo)*(a.to-a.from)
}

// ticks returns round values across [lo, hi]: 1, 2, 5 x 10^k on a log
// scale, about six steps of 1, 2 or 5 x 10^k on a linear one.
func ticks(lo, hi float64, log bool) []float64 {
	var ts []float64
	if log {
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			for _, m := range []float64{1, 2, 5} {
				if v := m * math.Pow(10, e); v >= lo*0.999 && v <= hi*1.001 {
					ts = append(ts, v)
				}
			}
		}
		return ts
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	for v := math.Ceil(lo/step) * step; v <= hi*1.0001; v += step {
		ts = append(ts, v)
	}
	return ts
}

func label(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

// frame draws the plot box, the y axis with its ticks and grid lines, and
// the axis titles.
func (c *canvas) frame(y axis, yLabel, xLabel string) {
	right := float64(width - plotRight)
	for _, t := range ticks(y.lo, y.hi, y.log) {
		p := y.px(t)
		c.f(`<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, plotLeft, p, right, p)
		c.text(plotLeft-5, p+4, "end", "11", label(t))
	}
	c.f(`<rect x="%d" y="%d" width="%.0f" height="%d" fill="none" stroke="#333"/>`, plotLeft, plotTop, right-plotLeft, plotHeight)
	c.f(`<text x="16" y="%d" text-anchor="middle" font-size="12" transform="rotate(-90 16 %d)">%s</text>`,
		plotTop+plotHeight/2, plotTop+plotHeight/2, html.EscapeString(yLabel))
	c.text((plotLeft+right)/2, plotTop+plotHeight+52, "middle", "12", xLabel)
}

// legend draws one entry per name at the plot's right.
func (c *canvas) legend(names []string, colors []string, dashed []bool) {
	x := float64(width - plotRight + 12)
	for i, n := range names {
		y := float64(plotTop + 10 + i*18)
		dash := ""
		if dashed != nil && dashed[i] {
			dash = ` stroke-dasharray="5,3"`
		}
		c.f(`<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="3"%s/>`, x, y, x+22, y, colors[i], dash)
		c.text(x+28, y+4, "start", "11", n)
	}
}

// color returns palette colour i.
func color(i int) string { return Palette[i%len(Palette)] }
