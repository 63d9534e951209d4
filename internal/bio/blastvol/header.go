// Package blastvol reads and rewrites the header of a BLAST database
// volume's index file (.pin or .nin, format versions 4 and 5): its title
// and the date makeblastdb wrote, which BLAST prints as "Posted date".
// Regeneration (internal/engine/regen) builds a small database of a query's hits
// and gives it the date of the database the campaign searches, so a
// regenerated report does not depend on when it was regenerated.
package blastvol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// DateLayout is how makeblastdb writes its date, for time.Parse:
// "Nov 26, 2026  4:59 AM".
const DateLayout = "Jan 2, 2006  3:04 PM"

// Header is what an index file's header holds before its offset tables.
type Header struct {
	Version int    // 4 or 5
	Protein bool   // sequence type
	Title   string // -title
	Date    string // e.g. "Nov 26, 2026  4:59 AM", without the padding
	// dateAt is the offset of the date's length field; rest the offset
	// of the first field after the date (the sequence count).
	dateAt, rest int
}

// Parse reads the header of an index file's bytes.
func Parse(b []byte) (Header, error) {
	var h Header
	r := reader{b: b}
	v := r.int32()
	t := r.int32()
	if r.err != nil || (v != 4 && v != 5) || (t != 0 && t != 1) {
		return h, errors.New("not a BLAST database index file (version 4 or 5)")
	}
	h.Version, h.Protein = int(v), t == 1
	if v == 5 {
		r.int32() // volume number
	}
	h.Title = r.str()
	if v == 5 {
		r.str() // the LMDB file's name
	}
	h.dateAt = r.at
	h.Date = string(bytes.TrimRight([]byte(r.str()), "\x00"))
	h.rest = r.at
	if r.err != nil {
		return h, fmt.Errorf("BLAST database index header: %w", r.err)
	}
	return h, nil
}

// ReadHeader reads the header of the index file at path.
func ReadHeader(path string) (Header, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Header{}, err
	}
	h, err := Parse(b)
	if err != nil {
		return h, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// SetDate rewrites the date of the index file at path. makeblastdb pads
// the date with NULs so the offset tables after the header start at a
// multiple of 8 bytes; the new date is padded the same way. Nothing else
// in the file points into it, so the header may change length.
func SetDate(path, date string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	h, err := Parse(b)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if bytes.IndexByte([]byte(date), 0) >= 0 || date == "" {
		return fmt.Errorf("date %q: empty or holds a NUL", date)
	}
	n := len(date)
	for (h.dateAt+4+n)%8 != 0 {
		n++
	}
	field := make([]byte, 4+n)
	binary.BigEndian.PutUint32(field, uint32(n))
	copy(field[4:], date)
	out := append(append(append([]byte(nil), b[:h.dateAt]...), field...), b[h.rest:]...)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

type reader struct {
	b   []byte
	at  int
	err error
}

func (r *reader) int32() uint32 {
	if r.err != nil || r.at+4 > len(r.b) {
		r.err = errors.New("truncated")
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.at:])
	r.at += 4
	return v
}

func (r *reader) str() string {
	n := int(r.int32())
	if r.err != nil || n < 0 || r.at+n > len(r.b) {
		r.err = errors.New("truncated")
		return ""
	}
	s := string(r.b[r.at : r.at+n])
	r.at += n
	return s
}
