package report

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/dustin/go-humanize"
)

// seconds is a duration for people: milliseconds below a second, then
// seconds, minutes and seconds, or hours and minutes.
func seconds(s float64) string {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return "—"
	case s < 0.001:
		return "0 s"
	case s < 1:
		return fmt.Sprintf("%.0f ms", 1000*s)
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	case s < 60:
		return fmt.Sprintf("%.1f s", s)
	case s < 3600:
		m := int(s) / 60
		return fmt.Sprintf("%d min %02d s", m, int(s)-60*m)
	default:
		h := int(s) / 3600
		return fmt.Sprintf("%d h %02d min", h, (int(s)-3600*h)/60)
	}
}

// stamp is a moment in UTC, to the second.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// ratio is part/whole as a percentage, or a dash when whole is zero.
func ratio(part, whole float64) string {
	if whole <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*part/whole)
}

func ibytes(n int64) string { return humanize.IBytes(uint64(max(n, 0))) }

// num is a float with at most 3 decimals and no trailing zeros, for
// SVG coordinates.
func num(f float64) string { return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64) }
