package regen

import (
	"bytes"
	"fmt"
	"strconv"
)

// Metadata is what a partition commits for one query when a campaign
// transfers metadata (ParaMEDIC): the query's place in the search and its
// kept subjects; the report is regenerated from it at home. One line:
//
//	<index from 1>\t<query id>\t<ordinal>:<shard>,<ordinal>:<shard>,...\n
//
// a few bytes per subject where a report holds its alignments. A query
// searched in a BLAST+ batch of several letters (the default batching)
// adds two fields, what regenerating its batch needs (regen.Batch):
//
//	...\t<index of its batch's first query>\t<1 if More, else 0>\n
type Metadata struct {
	Index    int
	Query    string
	Subjects []MetaSubject // in the database's order
	// Batch is the index (from 1) of the first query of the query's
	// BLAST+ batch; 0: the query was searched alone.
	Batch int
	// More: the query has, or may have, hits it did not keep
	// (BatchQuery.More).
	More bool
}

// MetaSubject is a kept subject: its ordinal in the unsharded database and
// the shard holding it.
type MetaSubject struct {
	Ordinal int64
	Shard   int
}

// Append appends m's line to b.
func (m Metadata) Append(b []byte) []byte {
	b = strconv.AppendInt(b, int64(m.Index), 10)
	b = append(b, '\t')
	b = append(b, m.Query...)
	b = append(b, '\t')
	for i, s := range m.Subjects {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, s.Ordinal, 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(s.Shard), 10)
	}
	if m.Batch > 0 {
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(m.Batch), 10)
		b = append(b, '\t', "01"[btoi(m.More)])
	}
	return append(b, '\n')
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ParseMetadata reads one line (without its newline).
func ParseMetadata(line []byte) (Metadata, error) {
	f := bytes.Split(line, []byte{'\t'})
	if len(f) != 3 && len(f) != 5 {
		return Metadata{}, fmt.Errorf("metadata line %.60q: %d fields, want 3 (index, query, subjects) or 5 (and batch, more)", line, len(f))
	}
	var m Metadata
	var err error
	if m.Index, err = strconv.Atoi(string(f[0])); err != nil || m.Index < 1 {
		return Metadata{}, fmt.Errorf("metadata line %.60q: index %q", line, f[0])
	}
	if len(f) == 5 {
		if m.Batch, err = strconv.Atoi(string(f[3])); err != nil || m.Batch < 1 || m.Batch > m.Index {
			return Metadata{}, fmt.Errorf("metadata line %.60q: batch %q", line, f[3])
		}
		if string(f[4]) != "0" && string(f[4]) != "1" {
			return Metadata{}, fmt.Errorf("metadata line %.60q: more %q, want 0 or 1", line, f[4])
		}
		m.More = string(f[4]) == "1"
	}
	m.Query = string(f[1])
	if len(f[2]) == 0 {
		return m, nil
	}
	for _, s := range bytes.Split(f[2], []byte{','}) {
		o, sh, ok := bytes.Cut(s, []byte{':'})
		ord, err1 := strconv.ParseInt(string(o), 10, 64)
		shard, err2 := strconv.Atoi(string(sh))
		if !ok || err1 != nil || err2 != nil || ord < 0 || shard < 0 {
			return Metadata{}, fmt.Errorf("metadata line of query %s: subject %q, want ordinal:shard", m.Query, s)
		}
		m.Subjects = append(m.Subjects, MetaSubject{Ordinal: ord, Shard: shard})
	}
	return m, nil
}
