package fasta

import "fmt"

// Error is a validation error. It names the file, the line and, when known,
// the record, so a user can fix a large input without guessing.
type Error struct {
	Name string // file name as given to NewReader
	Line int    // 1-based line of the problem; 0 when not about a line
	ID   string // record id, if the problem belongs to a record
	Msg  string
}

func (e *Error) Error() string {
	s := e.Name
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.ID != "" {
		s += fmt.Sprintf(": record %q", e.ID)
	}
	return s + ": " + e.Msg
}
