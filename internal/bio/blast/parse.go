package blast

import (
	"bytes"
	"fmt"
	"strconv"
)

// Line is one parsed output line.
type Line struct {
	Query    string // qseqid as BLAST prints it
	Subject  string // sseqid as BLAST prints it
	Evalue   float64
	Bitscore float64
	Score    int64  // raw score
	SLen     int64  // subject length
	Text     []byte // the user's columns, joined by the format's separator, with a trailing newline
}

// convergedNote is what psiblast prints in tabular output, after a blank
// line, below the hits of a query whose iterations converged.
var convergedNote = []byte("Search has CONVERGED!")

// Parse splits BLAST's tabular output into lines, keeping only the user's
// columns in Text. Lines starting with '#' are skipped. psiblast's note
// that a query's search converged is kept, with its blank line, at the end
// of the Text of the query's last line, where psiblast prints it.
func Parse(out []byte, f *Format) ([]Line, error) {
	var lines []Line
	nUser := len(f.User)
	blank := false
	for n := 1; len(out) > 0; n++ {
		raw := out
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			raw, out = out[:i], out[i+1:]
		} else {
			out = nil
		}
		if bytes.Equal(raw, convergedNote) {
			if !blank || len(lines) == 0 || f.Regenerated() {
				return nil, fmt.Errorf("blast output line %d: %q after no query's hits", n, raw)
			}
			last := &lines[len(lines)-1]
			last.Text = append(append(append(last.Text, '\n'), raw...), '\n')
			blank = false
			continue
		}
		blank = len(raw) == 0
		if len(raw) == 0 || raw[0] == '#' {
			continue
		}
		fields := bytes.Split(raw, []byte{'\t'})
		if len(fields) != len(f.Request) {
			return nil, fmt.Errorf("blast output line %d: %d columns, asked for %d", n, len(fields), len(f.Request))
		}
		ev, err := strconv.ParseFloat(string(fields[f.EvalueCol]), 64)
		if err != nil {
			return nil, fmt.Errorf("blast output line %d: evalue %q: %w", n, fields[f.EvalueCol], err)
		}
		bs, err := strconv.ParseFloat(string(bytes.TrimSpace(fields[f.BitscoreCol])), 64)
		if err != nil {
			return nil, fmt.Errorf("blast output line %d: bitscore %q: %w", n, fields[f.BitscoreCol], err)
		}
		var ints [2]int64
		for i, col := range []int{f.ScoreCol, f.SLenCol} {
			if ints[i], err = strconv.ParseInt(string(fields[col]), 10, 64); err != nil {
				return nil, fmt.Errorf("blast output line %d: column %s %q: %w", n, f.Request[col], fields[col], err)
			}
		}
		// The user's columns come first, so their text is a prefix of the
		// line. A report's search has none: its lines are never written.
		var text []byte
		if f.Regenerated() {
			lines = append(lines, Line{Query: string(fields[f.QueryCol]), Subject: string(fields[f.SubjectCol]),
				Evalue: ev, Bitscore: bs, Score: ints[0], SLen: ints[1]})
			continue
		}
		end := 0
		for i := 0; i < nUser; i++ {
			end += len(fields[i]) + 1
		}
		text = make([]byte, end)
		copy(text, raw[:end-1])
		text[end-1] = '\n'
		if sep := f.Separator(); sep != '\t' {
			for i, c := range text[:end-1] {
				if c == '\t' {
					text[i] = sep
				}
			}
		}
		lines = append(lines, Line{
			Query: string(fields[f.QueryCol]), Subject: string(fields[f.SubjectCol]),
			Evalue: ev, Bitscore: bs, Score: ints[0], SLen: ints[1], Text: text,
		})
	}
	return lines, nil
}

// NormalizeID maps a database sequence's FASTA id to how BLAST prints it
// as sseqid from a -parse_seqids database: local ids lose their "lcl|"
// prefix. Query ids are printed as written.
func NormalizeID(id string) string {
	if len(id) > 4 && id[:4] == "lcl|" {
		return id[4:]
	}
	return id
}
