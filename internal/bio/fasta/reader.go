// Package fasta reads and writes FASTA files, plain or gzip-compressed, and
// validates them strictly enough that makeblastdb and a sharded build never
// meet a surprise: every problem is reported with file, line and record.
package fasta

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Record is one FASTA entry.
type Record struct {
	ID      string // first word of the defline
	Defline string // the whole header line without '>'
	Seq     []byte // letters only, as written (case kept)
	Ordinal int    // 0-based position in the file
	Line    int    // 1-based line number of the header
}

// Reader streams records from a FASTA file and validates them as it goes.
type Reader struct {
	name    string
	alpha   Alphabet
	br      *bufio.Reader
	gzipped bool

	line    int     // lines consumed so far
	buf     []byte  // scratch for lines longer than br's buffer
	pending *header // header read while finishing the previous record
	eof     bool
	ordinal int
	seen    map[string]int // duplicate key -> header line
	err     error          // sticky: a reader that failed keeps failing
	limits  Limits
	// inflated watches a gzip stream's expansion; nil for plain input.
	inflated *ratioReader
}

type header struct {
	defline string
	line    int
}

var gzipMagic = []byte{0x1f, 0x8b}

// NewReader returns a Reader over r, which may be plain or gzip FASTA:
// gzip is detected by its magic bytes, not by name. name is used in errors.
func NewReader(r io.Reader, name string, a Alphabet) (*Reader, error) {
	if !a.known() {
		return nil, fmt.Errorf("%s: unknown alphabet %v", name, a)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(len(gzipMagic))
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: reading: %w", name, err)
	}
	rd := &Reader{name: name, alpha: a, br: br, seen: make(map[string]int), limits: DefaultLimits}
	switch {
	case bytes.Equal(magic, gzipMagic):
		compressed := &countingReader{r: br}
		zr, err := gzip.NewReader(compressed)
		if err != nil {
			return nil, fmt.Errorf("%s: reading gzip header: %w", name, err)
		}
		rd.inflated = &ratioReader{r: zr, compressed: compressed, maxRatio: rd.limits.MaxGzipRatio}
		rd.br = bufio.NewReaderSize(rd.inflated, 64<<10)
		rd.gzipped = true
	case strings.HasSuffix(strings.ToLower(name), ".gz"):
		// A .gz name on plain data is almost always a mistake upstream
		// (a failed download, a renamed file); say so rather than guess.
		return nil, fmt.Errorf("%s: not a gzip stream", name)
	}
	return rd, nil
}

// ReadAll reads and validates every record of r.
func ReadAll(r io.Reader, name string, a Alphabet) ([]*Record, error) {
	rd, err := NewReader(r, name, a)
	if err != nil {
		return nil, err
	}
	var recs []*Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
}

// Next returns the next record, or io.EOF after the last one. After any
// other error the Reader is done and returns that error again.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return rec, nil
}

func (r *Reader) next() (*Record, error) {
	hdr := r.pending
	r.pending = nil
	if hdr == nil {
		var err error
		if hdr, err = r.firstHeader(); err != nil {
			return nil, err
		}
	}
	rec := &Record{Defline: hdr.defline, ID: idOf(hdr.defline), Ordinal: r.ordinal, Line: hdr.line}
	if err := r.checkID(rec); err != nil {
		return nil, err
	}
	if err := r.readSeq(rec); err != nil {
		return nil, err
	}
	r.ordinal++
	return rec, nil
}

// firstHeader skips blank lines up to the first header; anything else
// before it is an error.
func (r *Reader) firstHeader() (*header, error) {
	for !r.eof {
		line, err := r.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(line) > 0 && line[0] == '>' {
			return &header{defline: string(line[1:]), line: r.line}, nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return nil, &Error{Name: r.name, Line: r.line, Msg: "no header: sequence data before the first '>' line"}
		}
	}
	if r.ordinal == 0 {
		return nil, &Error{Name: r.name, Msg: "no sequences"}
	}
	return nil, io.EOF
}

// readSeq reads sequence lines up to the next header or the end.
func (r *Reader) readSeq(rec *Record) error {
	for {
		line, err := r.readLine()
		if err == io.EOF {
			break
		}
		var fe *Error
		if errors.As(err, &fe) && fe.ID == "" {
			fe.ID = rec.ID
		}
		if err != nil {
			return err
		}
		if len(line) > 0 && line[0] == '>' {
			r.pending = &header{defline: string(line[1:]), line: r.line}
			break
		}
		for col, c := range line {
			if isSpace(c) {
				continue
			}
			if !r.alpha.Valid(c) {
				return &Error{Name: r.name, Line: r.line, ID: rec.ID,
					Msg: fmt.Sprintf("invalid %s character %q at column %d (record header at line %d)",
						r.alpha, c, col+1, rec.Line)}
			}
			rec.Seq = append(rec.Seq, c)
		}
		if int64(len(rec.Seq)) > r.limits.MaxSequence {
			return &Error{Name: r.name, Line: r.line, ID: rec.ID,
				Msg: fmt.Sprintf("sequence longer than %d letters (record header at line %d): BLAST+ cannot hold it", r.limits.MaxSequence, rec.Line)}
		}
	}
	if len(rec.Seq) == 0 {
		return &Error{Name: r.name, Line: rec.Line, ID: rec.ID, Msg: "empty sequence"}
	}
	return nil
}

func (r *Reader) checkID(rec *Record) error {
	if rec.ID == "" {
		return &Error{Name: r.name, Line: rec.Line,
			Msg: "empty sequence id: the id must follow '>' directly, with no space"}
	}
	key := dupKey(rec.ID)
	if first, ok := r.seen[key]; ok {
		return &Error{Name: r.name, Line: rec.Line, ID: rec.ID,
			Msg: fmt.Sprintf("duplicate id: same as the record at line %d", first)}
	}
	r.seen[key] = rec.Line
	return nil
}

// idOf returns the defline's first word, or "" when it starts with space.
func idOf(defline string) string {
	if i := strings.IndexAny(defline, " \t\v\f\r"); i >= 0 {
		return defline[:i]
	}
	return defline
}

// dupKey folds ids the way makeblastdb -parse_seqids compares them: case
// does not matter and a bare id equals its "lcl|" form. Catching these here
// matters because in a sharded build the two records may land in different
// shards, where makeblastdb would never see them together.
func dupKey(id string) string {
	k := strings.ToUpper(id)
	return strings.TrimPrefix(k, "LCL|")
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// readLine returns the next line without its line ending (LF or CRLF).
// The slice is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	if r.eof {
		return nil, io.EOF
	}
	line, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		// A long line (unwrapped sequence): gather it in r.buf.
		r.buf = append(r.buf[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if int64(len(r.buf)) > r.limits.MaxLine {
				return nil, &Error{Name: r.name, Line: r.line + 1,
					Msg: fmt.Sprintf("line longer than %d bytes (the reader's limit)", r.limits.MaxLine)}
			}
			line, err = r.br.ReadSlice('\n')
			r.buf = append(r.buf, line...)
		}
		line = r.buf
	}
	switch {
	case err == io.EOF:
		r.eof = true
		if len(line) == 0 {
			return nil, io.EOF
		}
	case err != nil:
		return nil, r.ioError(err)
	}
	r.line++
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, nil
}

func (r *Reader) ioError(err error) error {
	var ratio *errGzipRatio
	if errors.As(err, &ratio) {
		return &Error{Name: r.name, Line: r.line + 1, Msg: ratio.Error()}
	}
	if r.gzipped {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: truncated gzip stream: %w", r.name, err)
		}
		return fmt.Errorf("%s: reading gzip stream: %w", r.name, err)
	}
	return fmt.Errorf("%s: reading: %w", r.name, err)
}
