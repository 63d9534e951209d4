// Package blastdoc splits a BLAST+ report into its frame (what BLAST
// prints once per run) and its bodies (what it prints per query), and puts
// bodies of many queries back into one report, the way BLAST+ 2.12 frames
// a run: one header, the bodies in query order with the queries numbered
// Query_1, Query_2, ... across the run, one footer.
//
// A regenerated campaign is searched again batch by batch (docs/concepts.md#the-correctness-contract: BLAST+'s own batches; or each query alone), so every body is
// BLAST's own; only the frame and the numbering come from here. The rules
// were read off BLAST+ 2.12's output and are checked against it by this
// package's tests.
package blastdoc

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
)

// Codes are the -outfmt codes this package frames. The BLAST archive
// (11) is not framed: a run's archive is its queries' one-query archives
// in order, which blast_formatter reads whole (see Split).
var Codes = []int{0, 5, 7, 11, 15, 16}

// Framed reports whether code is a report this package frames.
func Framed(code int) bool {
	for _, c := range Codes {
		if c == code {
			return true
		}
	}
	return false
}

// Parts is one query's report cut in three: Header+Body+Footer is the
// report.
type Parts struct {
	Header, Body, Footer []byte
}

// Split cuts a one-query report of format code.
func Split(code int, doc []byte) (Parts, error) {
	cut := func(h, f int) (Parts, error) {
		if h < 0 || f < h {
			return Parts{}, fmt.Errorf("outfmt %d: not a one-query BLAST report (%d bytes)", code, len(doc))
		}
		return Parts{Header: doc[:h], Body: doc[h:f], Footer: doc[f:]}, nil
	}
	after := func(marker string) int {
		i := bytes.Index(doc, []byte(marker))
		if i < 0 {
			return -1
		}
		return i + len(marker)
	}
	switch code {
	case 0:
		// The body runs from "Query=" to the blank lines after the last
		// "Effective search space used"; the footer from the
		// database's description.
		h := after("\nQuery= ")
		if h >= 0 {
			h -= len("Query= ")
		}
		return cut(h, bytes.LastIndex(doc, []byte("\n  Database: "))+1)
	case 5:
		return cut(after("<BlastOutput_iterations>\n"), bytes.LastIndex(doc, []byte("</BlastOutput_iterations>")))
	case 7:
		return cut(0, bytes.LastIndex(doc, []byte("# BLAST processed ")))
	case 11:
		// BLAST+'s archive of a batch interleaves its queries in several
		// sections (queries, alignments, masks, the request's masks) and
		// keeps the first query's statistics; a sequence of one-query
		// archives is what blast_formatter reads as it is, each query
		// formatted as searched alone (docs/concepts.md).
		if !bytes.HasPrefix(doc, []byte("Blast4-archive ::= {")) {
			return cut(-1, 0)
		}
		return cut(0, len(doc))
	case 15:
		return cut(after("\"BlastOutput2\": [\n"), bytes.LastIndex(doc, []byte("]\n}")))
	case 16:
		h := -1
		if i := bytes.Index(doc, []byte("<BlastXML2")); i >= 0 {
			if j := bytes.Index(doc[i:], []byte(">\n")); j >= 0 {
				h = i + j + 2
			}
		}
		return cut(h, bytes.LastIndex(doc, []byte("</BlastXML2>")))
	}
	return Parts{}, fmt.Errorf("outfmt %d is not a framed report", code)
}

// Separator is what BLAST prints between two queries' bodies.
func Separator(code int) []byte {
	switch code {
	case 15:
		return []byte(",\n")
	case 16:
		return []byte("\n")
	}
	return nil
}

// Renumber makes a one-query body (where the query is Query_1) the body
// of the k-th query (from 1) of a run. Only the fields that carry the
// number change: an exact tag or key, never free text.
func Renumber(code int, body []byte, k int) []byte { return renumber(code, body, 1, k) }

// renumber makes the body of a run's query from the body of its query k.
func renumber(code int, body []byte, from, k int) []byte {
	if k == from {
		return body
	}
	f, n := strconv.Itoa(from), strconv.Itoa(k)
	var pairs [][2]string
	switch code {
	case 5:
		pairs = [][2]string{
			{"<Iteration_iter-num>" + f + "</Iteration_iter-num>", "<Iteration_iter-num>" + n + "</Iteration_iter-num>"},
			{"<Iteration_query-ID>Query_" + f + "</Iteration_query-ID>", "<Iteration_query-ID>Query_" + n + "</Iteration_query-ID>"},
		}
	case 15:
		pairs = [][2]string{{`"query_id": "Query_` + f + `"`, `"query_id": "Query_` + n + `"`}}
	case 16:
		pairs = [][2]string{{"<query-id>Query_" + f + "</query-id>", "<query-id>Query_" + n + "</query-id>"}}
	}
	for _, p := range pairs {
		body = bytes.Replace(body, []byte(p[0]), []byte(p[1]), 1)
	}
	return body
}

// Footer is the footer of a run of n queries, given the one-query
// report's footer: only -outfmt 7 counts the queries.
func Footer(code int, footer []byte, n int) []byte {
	if code == 7 {
		return fmt.Appendf(nil, "# BLAST processed %d queries\n", n)
	}
	return footer
}

// Piece is what query k (from 1) of a run of n contributes to the run's
// report: the header if it is the first, the separator if not, its
// renumbered body, and the footer if it is the last. The run's report is
// its pieces in query order. SAM's (17) piece is the query's alignment
// lines alone (SAMPieces; the run's header is SAMHeader).
func Piece(code int, doc []byte, k, n int) ([]byte, error) {
	if code == samCode {
		p, err := SAMPieces(doc, k, 1)
		if err != nil {
			return nil, err
		}
		return p[0], nil
	}
	p, err := Split(code, doc)
	if err != nil {
		return nil, err
	}
	return piece(code, p, p.Body, 1, k, n), nil
}

// piece is Piece of body, the body of query from of the report cut in p.
func piece(code int, p Parts, body []byte, from, k, n int) []byte {
	var out []byte
	if k == 1 {
		out = append(out, p.Header...)
	} else {
		out = append(out, Separator(code)...)
	}
	out = append(out, renumber(code, body, from, k)...)
	if k == n {
		out = append(out, Footer(code, p.Footer, n)...)
	}
	return out
}

// Pieces cuts BLAST+'s report of a batch of n queries, the queries first
// to first+n-1 (from 1) of a run of total, into what each contributes to
// the run's report (Piece): the report of the whole run is the batches'
// pieces in query order. BLAST+ numbers a run's queries across its
// batches; a batch searched by itself numbers them from 1, and its
// pieces are renumbered. The archive (11) of a batch is one document
// that interleaves its queries: it is the batch's first piece, renumbered,
// and the others are empty. SAM's (17) pieces are the queries' alignment
// lines, without a header (SAMPieces).
func Pieces(code int, doc []byte, first, n, total int) ([][]byte, error) {
	if code == samCode {
		return SAMPieces(doc, first, n)
	}
	pieces := make([][]byte, n)
	if code == 11 {
		if _, err := Split(code, doc); err != nil {
			return nil, err
		}
		pieces[0] = renumberArchive(doc, first-1)
		return pieces, nil
	}
	p, err := Split(code, doc)
	if err != nil {
		return nil, err
	}
	bodies, err := splitBody(code, p.Body)
	if err != nil {
		return nil, err
	}
	if len(bodies) != n {
		return nil, fmt.Errorf("outfmt %d: a report of %d queries, want %d", code, len(bodies), n)
	}
	for i, body := range bodies {
		pieces[i] = piece(code, p, body, i+1, first+i, total)
	}
	return pieces, nil
}

// starts are what each query's body starts with, at the start of a line,
// in a report's body (-outfmt 7: the body's first line, the program's).
var starts = map[int]string{
	0:  "Query= ",
	5:  "<Iteration>\n",
	15: "{\n    \"report\":",
	16: "<BlastOutput2>\n",
}

// splitBody cuts the body of a report of several queries into the
// queries' bodies, without the separators between them.
func splitBody(code int, body []byte) ([][]byte, error) {
	start := starts[code]
	if code == 7 {
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			start = string(body[:i+1])
		}
	}
	if start == "" || !bytes.HasPrefix(body, []byte(start)) {
		return nil, fmt.Errorf("outfmt %d: a report's body does not start with a query's (%d bytes)", code, len(body))
	}
	sep := Separator(code)
	var bodies [][]byte
	for {
		i := bytes.Index(body[1:], []byte("\n"+start))
		if i < 0 {
			return append(bodies, body), nil
		}
		end := i + 2 // the next query's body starts after the newline
		if !bytes.HasSuffix(body[:end], sep) {
			return nil, fmt.Errorf("outfmt %d: no %q between two queries' bodies", code, sep)
		}
		bodies = append(bodies, body[:end-len(sep)])
		body = body[end:]
	}
}

// archiveQueryID is how an archive names a query BLAST+ numbered.
var archiveQueryID = regexp.MustCompile(`local str "Query_([0-9]+)"`)

// renumberArchive adds by to the numbers of an archive's queries.
func renumberArchive(doc []byte, by int) []byte {
	if by == 0 {
		return doc
	}
	return archiveQueryID.ReplaceAllFunc(doc, func(m []byte) []byte {
		k, err := strconv.Atoi(string(archiveQueryID.FindSubmatch(m)[1]))
		if err != nil {
			return m
		}
		return fmt.Appendf(nil, `local str "Query_%d"`, k+by)
	})
}
