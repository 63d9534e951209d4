package simulate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

// formatEvalue prints an E-value as BLAST+ 2.12's tabular output does
// (seen here: "0.0", "2.38e-175", "1.23e-16", "5.3").
func formatEvalue(e float64) string {
	switch {
	case e < 1e-180:
		return "0.0"
	case e < 0.0009:
		return strconv.FormatFloat(e, 'e', 2, 64)
	case e < 0.1:
		return strconv.FormatFloat(e, 'f', 3, 64)
	case e < 1:
		return strconv.FormatFloat(e, 'f', 2, 64)
	case e < 10:
		return strconv.FormatFloat(e, 'f', 1, 64)
	}
	return strconv.FormatFloat(e, 'f', 0, 64)
}

// formatBits prints a bit score as BLAST+ 2.12 does: one decimal up to
// 99.9, then truncated to an integer, then in exponent form.
func formatBits(b float64) string {
	switch {
	case b > 9999:
		return strconv.FormatFloat(b, 'e', 3, 64)
	case b > 99.9:
		return strconv.FormatInt(int64(b), 10)
	}
	return strconv.FormatFloat(b, 'f', 1, 64)
}

// columns renders one tabular column of a hit of a query.
var columns = map[string]func(q *Query, h *hsp) string{
	"qseqid":    func(q *Query, _ *hsp) string { return q.ID },
	"qacc":      func(q *Query, _ *hsp) string { return q.ID },
	"qaccver":   func(q *Query, _ *hsp) string { return q.ID },
	"qlen":      func(q *Query, _ *hsp) string { return strconv.Itoa(q.Len) },
	"sseqid":    func(_ *Query, h *hsp) string { return SubjectID(h.ordinal) },
	"sallseqid": func(_ *Query, h *hsp) string { return SubjectID(h.ordinal) },
	"sacc":      func(_ *Query, h *hsp) string { return SubjectID(h.ordinal) },
	"saccver":   func(_ *Query, h *hsp) string { return SubjectID(h.ordinal) },
	"sallacc":   func(_ *Query, h *hsp) string { return SubjectID(h.ordinal) },
	"slen":      func(_ *Query, h *hsp) string { return strconv.Itoa(h.slen) },
	"qstart":    func(_ *Query, h *hsp) string { return strconv.Itoa(h.qstart) },
	"qend":      func(_ *Query, h *hsp) string { return strconv.Itoa(h.qend) },
	"sstart":    func(_ *Query, h *hsp) string { return strconv.Itoa(h.sstart) },
	"send":      func(_ *Query, h *hsp) string { return strconv.Itoa(h.send) },
	"evalue":    func(_ *Query, h *hsp) string { return h.evalueText },
	"bitscore":  func(_ *Query, h *hsp) string { return h.bitsText },
	"score":     func(_ *Query, h *hsp) string { return strconv.FormatInt(h.score, 10) },
	"length":    func(_ *Query, h *hsp) string { return strconv.Itoa(h.length) },
	"pident":    func(_ *Query, h *hsp) string { return percent(h.nident, h.length, 3) },
	"nident":    func(_ *Query, h *hsp) string { return strconv.Itoa(h.nident) },
	"mismatch":  func(_ *Query, h *hsp) string { return strconv.Itoa(h.mismatch) },
	// Nucleotide hits: every identity is a positive.
	"positive": func(_ *Query, h *hsp) string { return strconv.Itoa(h.nident) },
	"ppos":     func(_ *Query, h *hsp) string { return percent(h.nident, h.length, 2) },
	"gapopen":  func(_ *Query, h *hsp) string { return strconv.Itoa(h.gapopen) },
	"gaps":     func(_ *Query, h *hsp) string { return strconv.Itoa(h.gaps) },
	"qcovhsp": func(q *Query, h *hsp) string {
		return strconv.Itoa(int(math.Round(100 * float64(h.qend-h.qstart+1) / float64(q.Len))))
	},
}

func percent(n, of, decimals int) string {
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', decimals, 64)
}

// CheckFormat reports a column the model cannot produce (sequences,
// taxonomy, titles...), so a run fails before any task does.
func CheckFormat(f *blast.Format) error {
	for _, c := range f.Request {
		if columns[c] == nil {
			return fmt.Errorf("simulate: outfmt column %q is not simulated (simulated: %s)", c, simulatedColumns())
		}
	}
	return nil
}

func simulatedColumns() string {
	var names []string
	for c := range columns {
		names = append(names, c)
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}

// appendLine renders a hit in the format's requested columns, tab-separated,
// as BLAST would print it.
func appendLine(buf []byte, f *blast.Format, q *Query, h *hsp) []byte {
	for i, c := range f.Request {
		if i > 0 {
			buf = append(buf, '\t')
		}
		buf = append(buf, columns[c](q, h)...)
	}
	return append(buf, '\n')
}
