package fasta

import (
	"bufio"
	"fmt"
	"io"
)

// LineWidth is how many letters a line holds in written FASTA. It does not
// affect BLAST results; 80 keeps files compact and readable.
const LineWidth = 80

// Writer writes FASTA records through a buffer; call Flush at the end.
type Writer struct {
	bw *bufio.Writer
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 256<<10)}
}

// Write writes one record: the defline, then the sequence wrapped at
// LineWidth letters.
func (w *Writer) Write(rec *Record) error {
	bw := w.bw
	bw.WriteByte('>')
	bw.WriteString(rec.Defline)
	bw.WriteByte('\n')
	for s := rec.Seq; len(s) > 0; s = s[min(len(s), LineWidth):] {
		bw.Write(s[:min(len(s), LineWidth)])
		bw.WriteByte('\n')
	}
	// bufio errors are sticky, so one check covers the writes above.
	if _, err := bw.Write(nil); err != nil {
		return fmt.Errorf("writing FASTA record %q: %w", rec.ID, err)
	}
	return nil
}

// Flush writes any buffered data.
func (w *Writer) Flush() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("writing FASTA: %w", err)
	}
	return nil
}

// Write writes records to w as FASTA.
func Write(w io.Writer, recs ...*Record) error {
	fw := NewWriter(w)
	for _, rec := range recs {
		if err := fw.Write(rec); err != nil {
			return err
		}
	}
	return fw.Flush()
}
