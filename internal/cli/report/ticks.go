package report

import (
	"fmt"
	"math"
	"strconv"
)

// tick is one labelled mark on an axis.
type tick struct {
	X     float64
	Label string
}

// tickSteps are the steps an axis of seconds may use: round numbers of
// seconds, minutes, hours and days, so labels read "30 s", "5 min", "2 h".
var tickSteps = []float64{
	0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
	1, 2, 5, 10, 15, 30,
	60, 120, 300, 600, 900, 1800,
	3600, 7200, 10800, 21600, 43200,
	86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400,
}

// niceStep is the smallest step that cuts span into at most n parts.
func niceStep(span float64, n int) float64 {
	for _, s := range tickSteps {
		if span/s <= float64(n) {
			return s
		}
	}
	last := tickSteps[len(tickSteps)-1]
	return last * math.Ceil(span/last/float64(n))
}

// timeTicks are the ticks of [0, span] seconds drawn over width pixels
// from x0.
func timeTicks(span, x0, width float64, n int) []tick {
	if span <= 0 {
		return []tick{{X: x0, Label: "0"}}
	}
	step := niceStep(span, n)
	var out []tick
	for i := 0; float64(i)*step <= span*(1+1e-9); i++ {
		v := float64(i) * step
		out = append(out, tick{X: x0 + v/span*width, Label: tickLabel(v, step)})
	}
	return out
}

// tickLabel names v in the unit its step is counted in.
func tickLabel(v, step float64) string {
	if v == 0 {
		return "0"
	}
	switch {
	case step < 1:
		decimals := int(math.Max(0, -math.Floor(math.Log10(step))))
		return strconv.FormatFloat(v, 'f', decimals, 64) + " s"
	case step < 60:
		return fmt.Sprintf("%.0f s", v)
	case step < 1800:
		return strconv.FormatFloat(v/60, 'f', -1, 64) + " min"
	case step < 86400:
		return strconv.FormatFloat(v/3600, 'f', -1, 64) + " h"
	default:
		return strconv.FormatFloat(v/86400, 'f', -1, 64) + " d"
	}
}
