package regen

import (
	"reflect"
	"testing"
)

// TestMetadataLines: a line reads back as written, alone (3 fields, as
// before batches) and in a batch (its batch and whether it has more hits).
func TestMetadataLines(t *testing.T) {
	for _, c := range []struct {
		md   Metadata
		line string
	}{
		{Metadata{Index: 3, Query: "q3", Subjects: []MetaSubject{{Ordinal: 7, Shard: 1}, {Ordinal: 9, Shard: 0}}}, "3\tq3\t7:1,9:0\n"},
		{Metadata{Index: 4, Query: "q4"}, "4\tq4\t\n"},
		{Metadata{Index: 5, Query: "q5", Subjects: []MetaSubject{{Ordinal: 2, Shard: 2}}, Batch: 4, More: true}, "5\tq5\t2:2\t4\t1\n"},
		{Metadata{Index: 4, Query: "q4", Batch: 4}, "4\tq4\t\t4\t0\n"},
	} {
		if got := string(c.md.Append(nil)); got != c.line {
			t.Errorf("%+v: %q, want %q", c.md, got, c.line)
		}
		md, err := ParseMetadata([]byte(c.line[:len(c.line)-1]))
		if err != nil || !reflect.DeepEqual(md, c.md) {
			t.Errorf("%q: %+v, %v; want %+v", c.line, md, err, c.md)
		}
	}
	for _, bad := range []string{"5\tq5\t2:2\t6\t0", "5\tq5\t2:2\t0\t0", "5\tq5\t2:2\t4\tyes", "5\tq5\t2:2\t4"} {
		if _, err := ParseMetadata([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
