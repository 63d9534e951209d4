package blast

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// stdColumns is what BLAST+ 2.12 prints for "-outfmt 6" and the "std" keyword.
var stdColumns = []string{"qaccver", "saccver", "pident", "length", "mismatch",
	"gapopen", "qstart", "qend", "sstart", "send", "evalue", "bitscore"}

// knownColumns are BLAST+ 2.12 tabular column names.
var knownColumns = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`qseqid qgi qacc qaccver qlen sseqid sallseqid sgi sallgi sacc
	saccver sallacc slen qstart qend sstart send qseq sseq evalue bitscore score length pident nident
	mismatch positive gapopen gaps ppos frames qframe sframe btop staxid ssciname scomname sblastname
	sskingdom staxids sscinames scomnames sblastnames sskingdoms stitle salltitles sstrand qcovs
	qcovhsp qcovus`) {
		knownColumns[c] = true
	}
}

// mergeColumns are what the merge needs from every line: which query and
// subject it belongs to, and what BLAST sorts subjects by (E-value, raw
// score, and the subject length its protein E-values depend on).
var mergeColumns = []string{"qseqid", "sseqid", "evalue", "bitscore", "score", "slen"}

// Format is a parsed -outfmt: the columns the user sees and the columns
// the engine asks BLAST for (the user's, then any merge column the user
// did not ask for). Tabular formats (6, 10) are merged line by line; the
// others are reports that are regenerated query by query (Regenerated),
// after a tabular search with the merge columns finds each query's hits.
type Format struct {
	// 6: tab-separated; 10: comma-separated (CSV); a report format:
	// 0 pairwise, 5 XML, 7 tabular with comments, 11 BLAST archive,
	// 15 JSON, 16 XML2, 17 SAM (blastn only).
	Code    int
	User    []string // as BLAST prints them for the user's request (deduplicated)
	Request []string // User followed by missing merge columns
	// Index of each merge column within Request.
	QueryCol, SubjectCol, EvalueCol, BitscoreCol, ScoreCol, SLenCol int
}

// ParseFormat parses an -outfmt value such as "6 qseqid sseqid evalue".
func ParseFormat(s string) (*Format, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, fmt.Errorf("outfmt is empty")
	}
	code, err := strconv.Atoi(fields[0])
	if err != nil {
		return nil, fmt.Errorf("outfmt %q: %s", fields[0], supported)
	}
	return NewFormat(code, fields[1:])
}

// supported says which formats are.
const supported = "supported formats are 0 (pairwise), 5 (XML), 6 (tabular), 7 (tabular with comments), 10 (CSV), 11 (BLAST archive), 15 (JSON), 16 (XML2) and 17 (SAM, blastn only)"

// ReportCodes are the formats regenerated query by query.
var ReportCodes = []int{0, 5, 7, 11, 15, 16}

// SAM is -outfmt 17, which BLAST+ prints for blastn only. It is
// regenerated as the reports are; its header, which lists the queries
// with hits of the whole run, is made once the run's queries are
// written (package blastdoc).
const SAM = 17

// Regenerated reports whether the format is a report, made by searching
// each query again against a database of its hits (docs/concepts.md),
// rather than merged line by line.
func (f *Format) Regenerated() bool { return f.Code != 6 && f.Code != 10 }

// ReportArg is the -outfmt argument of a regeneration: the user's
// format, with its columns for the tabular ones (6, 7, 10).
func (f *Format) ReportArg() string {
	if len(f.User) > 0 {
		return fmt.Sprintf("%d %s", f.Code, strings.Join(f.User, " "))
	}
	return strconv.Itoa(f.Code)
}

// NewFormat is the format of that code with those columns (none: std),
// as ParseFormat("code columns...") is.
func NewFormat(code int, cols []string) (*Format, error) {
	f := &Format{Code: code}
	switch {
	case code == 6 || code == 10 || code == 7:
	case slices.Contains(ReportCodes, code) || code == SAM:
		if len(cols) > 0 {
			return nil, fmt.Errorf("outfmt %d takes no columns (only 6, 7 and 10 do), got %q", code, strings.Join(cols, " "))
		}
		// The search before regeneration needs the merge columns only.
		f.Request = slices.Clone(mergeColumns)
		f.setIndexes()
		return f, nil
	default:
		return nil, fmt.Errorf("outfmt %d: %s", code, supported)
	}
	if len(cols) == 0 {
		cols = []string{"std"}
	}
	seen := map[string]bool{}
	add := func(c string) {
		// BLAST prints a repeated column once; so do we.
		if !seen[c] {
			seen[c] = true
			f.User = append(f.User, c)
		}
	}
	for _, c := range cols {
		if c == "std" {
			for _, s := range stdColumns {
				add(s)
			}
			continue
		}
		if !knownColumns[c] {
			return nil, fmt.Errorf("outfmt: unknown column %q", c)
		}
		add(c)
	}
	f.Request = append([]string(nil), f.User...)
	for _, c := range mergeColumns {
		if !seen[c] {
			seen[c] = true
			f.Request = append(f.Request, c)
		}
	}
	f.setIndexes()
	return f, nil
}

func (f *Format) setIndexes() {
	index := func(c string) int {
		for i, r := range f.Request {
			if r == c {
				return i
			}
		}
		panic("merge column missing: " + c)
	}
	f.QueryCol, f.SubjectCol = index("qseqid"), index("sseqid")
	f.EvalueCol, f.BitscoreCol, f.ScoreCol = index("evalue"), index("bitscore"), index("score")
	f.SLenCol = index("slen")
}

// Arg is the -outfmt argument the engine passes to BLAST: always
// tab-separated, which no column's text holds, so lines split safely
// (a CSV title may hold commas); Parse joins the user's columns with the
// format's separator as BLAST would.
func (f *Format) Arg() string {
	return fmt.Sprintf("6 %s", strings.Join(f.Request, " "))
}

// Separator is what the user's columns are joined with: BLAST's -outfmt 10
// puts a comma between them where -outfmt 6 has a tab, and quotes nothing.
func (f *Format) Separator() byte {
	if f.Code == 10 {
		return ','
	}
	return '\t'
}

// UserArg is the -outfmt argument of the equivalent unsharded search.
func (f *Format) UserArg() string {
	if f.Regenerated() {
		return f.ReportArg()
	}
	return fmt.Sprintf("%d %s", f.Code, strings.Join(f.User, " "))
}
