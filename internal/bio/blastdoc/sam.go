package blastdoc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// BLAST+ 2.12 prints SAM (-outfmt 17) as one document for the whole run,
// whatever its batches: a header (@HD; one @SQ per query that has hits,
// in query order, named Query_N after its number in the run, with its
// length; @PG with BLAST's version and command line), then the
// alignments, each query's together, in query order. A run without hits
// prints nothing. A query's alignments are the same whether its batch is
// searched in the run or by itself (this package's tests check it), so a
// query's piece is its lines, renumbered, and the header is made from
// the pieces once they are all written (SAMHeader).

// samCode is -outfmt 17 (blast.SAM; this package does not import blast).
const samCode = 17

// samQuery is how SAM names a query BLAST+ numbered (-parse_deflines,
// which names it by its id, is refused by the engine).
const samQuery = "Query_"

// SAMPieces cuts BLAST+'s SAM of a batch of n queries, numbered 1 to n
// by BLAST, into each query's alignment lines, numbered as the queries
// first to first+n-1 of the run. The header is dropped: the run's is one
// for all its queries.
func SAMPieces(doc []byte, first, n int) ([][]byte, error) {
	pieces := make([][]byte, n)
	last := 0
	for len(doc) > 0 {
		line := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line = doc[:i+1]
		}
		doc = doc[len(line):]
		if line[0] == '@' {
			continue
		}
		k, start, end, err := samRName(line)
		if err != nil {
			return nil, err
		}
		if k < last || k > n {
			return nil, fmt.Errorf("outfmt 17: alignment of query %d after query %d's, in a batch of %d", k, last, n)
		}
		last = k
		p := pieces[k-1]
		p = append(p, line[:start]...)
		p = strconv.AppendInt(append(p, samQuery...), int64(first+k-1), 10)
		pieces[k-1] = append(p, line[end:]...)
	}
	return pieces, nil
}

// samRName finds an alignment line's RNAME, Query_k: k, and where the
// field starts and ends in line.
func samRName(line []byte) (k, start, end int, err error) {
	for f := 0; f < 2; f++ {
		i := bytes.IndexByte(line[start:], '\t')
		if i < 0 {
			return 0, 0, 0, fmt.Errorf("outfmt 17: an alignment line of fewer than 3 fields: %.80q", line)
		}
		start += i + 1
	}
	end = start + bytes.IndexByte(line[start:], '\t')
	if end < start {
		return 0, 0, 0, fmt.Errorf("outfmt 17: an alignment line of fewer than 4 fields: %.80q", line)
	}
	name := line[start:end]
	if !bytes.HasPrefix(name, []byte(samQuery)) {
		return 0, 0, 0, fmt.Errorf("outfmt 17: reference name %q is not a query BLAST numbered", name)
	}
	if k, err = strconv.Atoi(string(name[len(samQuery):])); err != nil || k < 1 {
		return 0, 0, 0, fmt.Errorf("outfmt 17: reference name %q is not a query BLAST numbered", name)
	}
	return k, start, end, nil
}

// SAMProgram is the @PG line BLAST+ version prints for a blastn run of
// argv (the program's name first): each argument followed by a space.
func SAMProgram(version string, argv []string) []byte {
	b := fmt.Appendf(nil, "@PG\tID:0\tVN:%s\tCL:", version)
	for _, a := range argv {
		b = append(append(b, a...), ' ')
	}
	return append(b, "\tPN:blastn\n"...)
}

// SAMHeader is the header BLAST+ prints before a run's alignments, body
// (the queries' pieces in order): @HD, an @SQ line for each query body
// names, with its length (lengths[N-1] for Query_N), and pg (SAMProgram).
// A body without alignments has no header: BLAST prints nothing.
func SAMHeader(body io.Reader, lengths []int, pg []byte) ([]byte, error) {
	r := bufio.NewReaderSize(body, 1<<20)
	var sq []byte
	last := 0
	for {
		line, err := r.ReadSlice('\n')
		// A line longer than the buffer: its RNAME is in the first part.
		long := errors.Is(err, bufio.ErrBufferFull)
		if len(line) > 0 && line[0] != '@' {
			k, _, _, perr := samRName(line)
			if perr != nil {
				return nil, perr
			}
			if k < last {
				return nil, fmt.Errorf("outfmt 17: alignment of query %d after query %d's", k, last)
			}
			if k > len(lengths) {
				return nil, fmt.Errorf("outfmt 17: alignment of query %d of a run of %d", k, len(lengths))
			}
			if k > last {
				sq = fmt.Appendf(sq, "@SQ\tSN:%s%d\tLN:%d\n", samQuery, k, lengths[k-1])
				last = k
			}
		}
		for long {
			_, err = r.ReadSlice('\n')
			long = errors.Is(err, bufio.ErrBufferFull)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("outfmt 17: reading the alignments: %w", err)
		}
	}
	if last == 0 {
		return nil, nil
	}
	h := []byte("@HD\tVN:1.2\tSO:coordinate\tGO:reference\n")
	return append(append(h, sq...), pg...), nil
}
