package blast

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustFormat(t *testing.T, s string) *Format {
	t.Helper()
	f, err := ParseFormat(s)
	if err != nil {
		t.Fatalf("ParseFormat(%q): %v", s, err)
	}
	return f
}

func TestParseFormat(t *testing.T) {
	std := []string{"qaccver", "saccver", "pident", "length", "mismatch",
		"gapopen", "qstart", "qend", "sstart", "send", "evalue", "bitscore"}
	tests := []struct {
		in      string
		user    []string
		request []string // nil: User followed by all merge columns not in User
	}{
		{in: "6", user: std},
		{in: "6 std", user: std},
		{in: "  6   std  ", user: std},
		{in: "6 std std", user: std},
		{in: "6 std evalue qaccver slen", user: append(slices.Clone(std), "slen")},
		{in: "6 qseqid sseqid evalue", user: []string{"qseqid", "sseqid", "evalue"},
			request: []string{"qseqid", "sseqid", "evalue", "bitscore", "score", "slen"}},
		{in: "6 qseqid sseqid qseqid evalue sseqid", user: []string{"qseqid", "sseqid", "evalue"}},
		{in: "6 slen score bitscore evalue sseqid qseqid",
			user:    []string{"slen", "score", "bitscore", "evalue", "sseqid", "qseqid"},
			request: []string{"slen", "score", "bitscore", "evalue", "sseqid", "qseqid"}},
		{in: "6 pident", user: []string{"pident"},
			request: []string{"pident", "qseqid", "sseqid", "evalue", "bitscore", "score", "slen"}},
		{in: "6 staxids stitle qcovs", user: []string{"staxids", "stitle", "qcovs"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f := mustFormat(t, tt.in)
			if f.Code != 6 {
				t.Errorf("Code %d, want 6", f.Code)
			}
			if !slices.Equal(f.User, tt.user) {
				t.Errorf("User\n got %v\nwant %v", f.User, tt.user)
			}
			want := tt.request
			if want == nil {
				want = slices.Clone(tt.user)
				for _, c := range mergeColumns {
					if !slices.Contains(want, c) {
						want = append(want, c)
					}
				}
			}
			if !slices.Equal(f.Request, want) {
				t.Errorf("Request\n got %v\nwant %v", f.Request, want)
			}
			// The user's columns are a prefix of the request, and the
			// request has no duplicates.
			if !slices.Equal(f.Request[:len(f.User)], f.User) {
				t.Errorf("User %v is not a prefix of Request %v", f.User, f.Request)
			}
			seen := map[string]bool{}
			for _, c := range f.Request {
				if seen[c] {
					t.Errorf("Request repeats %q: %v", c, f.Request)
				}
				seen[c] = true
			}
			for name, idx := range map[string]int{
				"qseqid": f.QueryCol, "sseqid": f.SubjectCol, "evalue": f.EvalueCol,
				"bitscore": f.BitscoreCol, "score": f.ScoreCol, "slen": f.SLenCol,
			} {
				if idx < 0 || idx >= len(f.Request) || f.Request[idx] != name {
					t.Errorf("index of %s is %d, Request %v", name, idx, f.Request)
				}
			}
			if got, want := f.Arg(), "6 "+strings.Join(f.Request, " "); got != want {
				t.Errorf("Arg %q, want %q", got, want)
			}
			if got, want := f.UserArg(), "6 "+strings.Join(f.User, " "); got != want {
				t.Errorf("UserArg %q, want %q", got, want)
			}
		})
	}
}

// TestReportFormats: a report's search asks for the merge columns only,
// and its regeneration for the user's format.
func TestReportFormats(t *testing.T) {
	for in, want := range map[string]string{"0": "0", "5": "5", "15": "15", "16": "16", "7": "7 " + strings.Join(stdColumns, " "),
		"7 qseqid sseqid evalue": "7 qseqid sseqid evalue"} {
		f, err := ParseFormat(in)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Regenerated() || f.ReportArg() != want || f.UserArg() != want {
			t.Errorf("%q: regenerated %v, report %q, user %q; want %q", in, f.Regenerated(), f.ReportArg(), f.UserArg(), want)
		}
		if !strings.HasPrefix(f.Arg(), "6 ") || !strings.Contains(f.Arg(), "sseqid") {
			t.Errorf("%q: search argument %q", in, f.Arg())
		}
	}
	for _, in := range []string{"6", "10 qseqid"} {
		if f, _ := ParseFormat(in); f.Regenerated() {
			t.Errorf("%q is merged line by line, not regenerated", in)
		}
	}
}

func TestParseFormatErrors(t *testing.T) {
	tests := []struct {
		in, wantErr string
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"1", "supported formats are 0 (pairwise)"},
		{"11 qseqid", "outfmt 11 takes no columns"},
		{"18", "supported formats"},
		{"17 qseqid", "outfmt 17 takes no columns"},
		{"0 qseqid", "outfmt 0 takes no columns"},
		{"5 std", "outfmt 5 takes no columns"},
		{"7 qseqid nope", `unknown column "nope"`},
		{"10 qseqid nope", `unknown column "nope"`},
		{"6 qseqid frobnicate", `unknown column "frobnicate"`},
		{"6 std QSEQID", `unknown column "QSEQID"`},
		{"6,qseqid", "supported formats"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, err := ParseFormat(tt.in)
			if err == nil {
				t.Fatalf("ParseFormat(%q) = %+v, want an error", tt.in, f)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseOption(t *testing.T) {
	tests := []struct {
		in   string
		want Option
	}{
		{"-word_size=11", Option{"word_size", "11"}},
		{"-word_size 11", Option{"word_size", "11"}},
		{"-task=megablast", Option{"task", "megablast"}},
		{"-task blastn-short", Option{"task", "blastn-short"}},
		{"-ungapped", Option{"ungapped", ""}},
		{"-lcase_masking", Option{"lcase_masking", ""}},
		{"-dust=no", Option{"dust", "no"}},
		{"-dust 20 64 1", Option{"dust", "20 64 1"}}, // one argv element
		{"-matrix=BLOSUM62", Option{"matrix", "BLOSUM62"}},
		{"--word_size=11", Option{"word_size", "11"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseOption(tt.in)
			if err != nil {
				t.Fatalf("ParseOption(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseOptionErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr []string // all must appear in the message
	}{
		{"-db=/data/nt", []string{"-db is not allowed", "the engine chooses the database shards"}},
		{"-db", []string{"-db is not allowed"}},
		{"-query q.fa", []string{"-query is not allowed", "--queries"}},
		{"-out=x.tsv", []string{"-out is not allowed", "--output"}},
		{"-outfmt=5", []string{"-outfmt is not allowed", "--outfmt"}},
		{"-remote", []string{"-remote is not allowed", "searches run on the partition's workers"}},
		{"-import_search_strategy=s.asn", []string{"-import_search_strategy is not allowed", "it replaces the whole search"}},
		{"-max_target_seqs=5", []string{"not allowed", "--max-target-seqs"}},
		{"-evalue=1e-5", []string{"not allowed", "--evalue"}},
		{"-frobnicate=1", []string{"-frobnicate", "allowlist"}},
		{"-frobnicate", []string{"-frobnicate", "allowlist"}},
		{"word_size=11", []string{"must start with '-'"}},
		{"", []string{"must start with '-'"}},
		{"-num_threads=2", []string{"-num_threads is not allowed", "--threads", "slotsPerWorker"}},
		{"-ungapped=true", []string{"-ungapped takes no value"}},
		{"-ungapped 1", []string{"-ungapped takes no value"}},
		{"-word_size", []string{"-word_size needs a value"}},
		{"-word_size=", []string{"-word_size needs a value"}},
		{"-word_size=  ", []string{"-word_size needs a value"}},
		{"-task=a\nb", []string{"control character"}},
		{"-task=a\x00b", []string{"control character"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseOption(tt.in)
			if err == nil {
				t.Fatalf("ParseOption(%q) = %+v, want an error", tt.in, got)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want it to mention %q", err, w)
				}
			}
		})
	}
}

func TestArgs(t *testing.T) {
	got := Args([]Option{{"word_size", "11"}, {"ungapped", ""}, {"dust", "20 64 1"}})
	want := []string{"-word_size", "11", "-ungapped", "-dust", "20 64 1"}
	if !slices.Equal(got, want) {
		t.Errorf("Args\n got %q\nwant %q", got, want)
	}
	if got := Args(nil); len(got) != 0 {
		t.Errorf("Args(nil) = %q", got)
	}
}

func TestParseOutput(t *testing.T) {
	f := mustFormat(t, "6 qseqid sseqid pident evalue bitscore")
	// Request: qseqid sseqid pident evalue bitscore score slen
	out := "# BLASTN 2.12.0+\n" +
		"# Query: q1\n" +
		"q1\ts1\t100.000\t1.23e-50\t  187\t101\t1000\n" +
		"\n" +
		"q1\tgi|55|ref|NM_1.1|\t98.5\t0.0\t 1833\t992\t5000\n" +
		"q2\ts3\t75.25\t4.5\t16.4\t8\t77" // no trailing newline
	lines, err := Parse([]byte(out), f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{
		{Query: "q1", Subject: "s1", Evalue: 1.23e-50, Bitscore: 187, Score: 101, SLen: 1000,
			Text: []byte("q1\ts1\t100.000\t1.23e-50\t  187\n")},
		{Query: "q1", Subject: "gi|55|ref|NM_1.1|", Evalue: 0, Bitscore: 1833, Score: 992, SLen: 5000,
			Text: []byte("q1\tgi|55|ref|NM_1.1|\t98.5\t0.0\t 1833\n")},
		{Query: "q2", Subject: "s3", Evalue: 4.5, Bitscore: 16.4, Score: 8, SLen: 77,
			Text: []byte("q2\ts3\t75.25\t4.5\t16.4\n")},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d: %+v", len(lines), len(want), lines)
	}
	for i := range want {
		g, w := lines[i], want[i]
		if g.Query != w.Query || g.Subject != w.Subject || g.Evalue != w.Evalue ||
			g.Bitscore != w.Bitscore || g.Score != w.Score || g.SLen != w.SLen || string(g.Text) != string(w.Text) {
			t.Errorf("line %d\n got %+v (Text %q)\nwant %+v (Text %q)", i, g, g.Text, w, w.Text)
		}
	}
}

func TestParseOutputColumnOrder(t *testing.T) {
	tests := []struct {
		name, format, line string
		want               Line
	}{
		{
			name:   "user asked for every merge column: text is the whole line",
			format: "6 qseqid sseqid evalue bitscore score slen",
			line:   "qA\tsB\t2e-10\t55.1\t60\t300",
			want:   Line{Query: "qA", Subject: "sB", Evalue: 2e-10, Bitscore: 55.1, Score: 60, SLen: 300, Text: []byte("qA\tsB\t2e-10\t55.1\t60\t300\n")},
		},
		{
			name:   "merge columns in the user's own order",
			format: "6 slen evalue sseqid",
			line:   "300\t2e-10\tsB\tqA\t55.1\t60",
			want:   Line{Query: "qA", Subject: "sB", Evalue: 2e-10, Bitscore: 55.1, Score: 60, SLen: 300, Text: []byte("300\t2e-10\tsB\n")},
		},
		{
			name:   "empty user columns stay byte-exact",
			format: "6 qseqid stitle sseqid",
			line:   "qA\t\tsB\t2e-10\t55.1\t60\t300",
			want:   Line{Query: "qA", Subject: "sB", Evalue: 2e-10, Bitscore: 55.1, Score: 60, SLen: 300, Text: []byte("qA\t\tsB\n")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, err := Parse([]byte(tt.line+"\n"), mustFormat(t, tt.format))
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != 1 {
				t.Fatalf("got %d lines", len(lines))
			}
			g, w := lines[0], tt.want
			if g.Query != w.Query || g.Subject != w.Subject || g.Evalue != w.Evalue ||
				g.Bitscore != w.Bitscore || g.Score != w.Score || g.SLen != w.SLen || string(g.Text) != string(w.Text) {
				t.Errorf("\n got %+v (Text %q)\nwant %+v (Text %q)", g, g.Text, w, w.Text)
			}
		})
	}
}

func TestParseOutputTextIsACopy(t *testing.T) {
	f := mustFormat(t, "6 qseqid sseqid evalue bitscore score slen")
	out := []byte("q\ts\t1e-5\t40.0\t30\t100\n")
	lines, err := Parse(out, f)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		out[i] = 'X'
	}
	if got := string(lines[0].Text); got != "q\ts\t1e-5\t40.0\t30\t100\n" {
		t.Errorf("Text aliases BLAST's output buffer: %q", got)
	}
}

func TestParseOutputEmpty(t *testing.T) {
	f := mustFormat(t, "6")
	for _, out := range []string{"", "\n", "# only comments\n# BLAST processed 1 queries\n"} {
		lines, err := Parse([]byte(out), f)
		if err != nil || len(lines) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want no lines, no error", out, lines, err)
		}
	}
}

func TestParseOutputErrors(t *testing.T) {
	f := mustFormat(t, "6 qseqid sseqid evalue") // + bitscore score slen
	good := "q\ts\t1e-5\t40.0\t30\t100\n"
	tests := []struct {
		name, out, wantErr string
	}{
		{"too few columns", good + "q\ts\t1e-5\t40.0\t30\n", "line 2: 5 columns, asked for 6"},
		{"too many columns", "q\ts\t1e-5\t40.0\t30\t100\textra\n", "line 1: 7 columns, asked for 6"},
		{"spaces instead of tabs", "q s 1e-5 40.0 30 100\n", "line 1: 1 columns"},
		{"bad evalue", "q\ts\tlow\t40.0\t30\t100\n", `evalue "low"`},
		{"bad bitscore", "q\ts\t1e-5\tN/A\t30\t100\n", `bitscore "N/A"`},
		{"fractional score", "q\ts\t1e-5\t40.0\t30.5\t100\n", `column score "30.5"`},
		{"bad slen", "q\ts\t1e-5\t40.0\t30\t\n", `column slen ""`},
		{"line numbers count comments", "# c\n" + good + "q\ts\n", "line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, err := Parse([]byte(tt.out), f)
			if err == nil {
				t.Fatalf("Parse = %+v, want an error", lines)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestNormalizeID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"lcl|query_1", "query_1"},
		{"lcl|1", "1"},
		{"lcl|", "lcl|"},
		{"query_1", "query_1"},
		{"gi|123|ref|NM_1.1|", "gi|123|ref|NM_1.1|"},
		{"LCL|q", "LCL|q"},
		{"xlcl|q", "xlcl|q"},
		{"lcl|lcl|q", "lcl|q"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := NormalizeID(tt.in); got != tt.want {
			t.Errorf("NormalizeID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInvocationArgv(t *testing.T) {
	f := mustFormat(t, "6 qseqid sseqid evalue")
	fmtArg := "6 qseqid sseqid evalue bitscore score slen"
	base := []string{"blastn", "-db", "/cache/group 1/blastfleet-group-001", "-query", "/tmp/block 3.fa", "-outfmt", fmtArg}
	tests := []struct {
		name string
		inv  Invocation
		want []string
	}{
		{
			name: "minimal",
			inv:  Invocation{Program: Blastn, DB: "/cache/group 1/blastfleet-group-001", Query: "/tmp/block 3.fa", Format: f},
			want: base,
		},
		{
			name: "one thread adds nothing",
			inv:  Invocation{Program: Blastn, DB: "/cache/group 1/blastfleet-group-001", Query: "/tmp/block 3.fa", Format: f, Threads: 1},
			want: base,
		},
		{
			name: "cut-offs and threads",
			inv: Invocation{Program: Blastn, DB: "/cache/group 1/blastfleet-group-001", Query: "/tmp/block 3.fa", Format: f,
				MaxTargetSeqs: 2000, Evalue: 1e-5, Threads: 4},
			want: append(slices.Clone(base), "-max_target_seqs", "2000", "-evalue", "1e-05", "-num_threads", "4"),
		},
		{
			name: "options after ours",
			inv: Invocation{Program: Blastn, DB: "/cache/group 1/blastfleet-group-001", Query: "/tmp/block 3.fa", Format: f,
				Evalue: 10, Threads: 2, Options: []Option{{"word_size", "11"}, {"ungapped", ""}}},
			want: append(slices.Clone(base), "-evalue", "10", "-num_threads", "2", "-word_size", "11", "-ungapped"),
		},
		{
			name: "shell metacharacters stay literal",
			inv: Invocation{Program: Blastn, DB: "/cache/group 1/blastfleet-group-001", Query: "/tmp/block 3.fa", Format: f,
				Options: []Option{{"task", "megablast; rm -rf /"}}},
			want: append(slices.Clone(base), "-task", "megablast; rm -rf /"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.inv.Argv()
			if !slices.Equal(got, tt.want) {
				t.Errorf("Argv\n got %q\nwant %q", got, tt.want)
			}
			if got[0] != string(tt.inv.Program) {
				t.Errorf("argv[0] = %q, want the program itself (never a shell)", got[0])
			}
			if n := strings.Count(strings.Join(got, "\x00"), "-num_threads"); n > 1 {
				t.Errorf("-num_threads given %d times", n)
			}
		})
	}
	p := Invocation{Program: Blastp, DB: "d", Query: "q", Format: f}.Argv()
	if p[0] != "blastp" {
		t.Errorf("blastp argv[0] = %q", p[0])
	}
}

func TestProgram(t *testing.T) {
	tests := []struct {
		p                 Program
		db, query         string
		lengthDependentEv bool
	}{
		{Blastn, "nucl", "nucl", false},
		{Blastp, "prot", "prot", true},
		{Blastx, "prot", "nucl", true},
		{Tblastn, "nucl", "prot", true},
		{Tblastx, "nucl", "nucl", false},
		{Rpsblast, "prot", "prot", true},
		{Rpstblastn, "prot", "nucl", true},
		{Psiblast, "prot", "prot", true},
	}
	for _, tt := range tests {
		got, err := ParseProgram(string(tt.p))
		if err != nil || got != tt.p {
			t.Errorf("ParseProgram(%q) = %q, %v", tt.p, got, err)
		}
		if tt.p.DBType() != tt.db || tt.p.QueryType() != tt.query || tt.p.LengthDependentEvalues() != tt.lengthDependentEv {
			t.Errorf("%s: DBType %s QueryType %s LengthDependentEvalues %v", tt.p,
				tt.p.DBType(), tt.p.QueryType(), tt.p.LengthDependentEvalues())
		}
	}
	if _, err := ParseProgram("deltablast"); err == nil || !strings.Contains(err.Error(), "blastn, blastp") {
		t.Errorf("ParseProgram(deltablast) error %v", err)
	}
	// Only the profile programs search profiles; they and psiblast search
	// the whole database in each task.
	for _, p := range Programs {
		profile := p == Rpsblast || p == Rpstblastn
		if p.Profile() != profile || p.WholeDatabase() != (profile || p == Psiblast) {
			t.Errorf("%s: Profile %v WholeDatabase %v", p, p.Profile(), p.WholeDatabase())
		}
	}
}

func TestRunErrors(t *testing.T) {
	f := mustFormat(t, "6")
	ctx := context.Background()
	// A program that cannot be found: Run reports it by name.
	_, err := Run(ctx, Invocation{Program: "blastfleet-no-such-program", DB: "d", Query: "q", Format: f})
	if err == nil || !strings.Contains(err.Error(), "blastfleet-no-such-program") {
		t.Errorf("Run of a missing program: %v", err)
	}
	// A program that fails: an *ExitError with the code and argv.
	if _, err := exec.LookPath("false"); err != nil {
		t.Skip("no false(1) on PATH")
	}
	_, err = Run(ctx, Invocation{Program: "false", DB: "d", Query: "q", Format: f})
	var xe *ExitError
	if !errors.As(err, &xe) {
		t.Fatalf("Run(false) error %v (%T), want *ExitError", err, err)
	}
	if xe.ExitCode != 1 || xe.Signal != "" || xe.Argv[0] != "false" || xe.StderrTail != "(no stderr)" {
		t.Errorf("ExitError %+v", xe)
	}
	if got, want := xe.Error(), "false failed (exit code 1): (no stderr)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestStderrTail(t *testing.T) {
	long := strings.Repeat("x", stderrTailBytes+100) + "END"
	tests := []struct{ in, want string }{
		{"", "(no stderr)"},
		{"  \n\n", "(no stderr)"},
		{"BLAST Database error: No alias or index file found\n", "BLAST Database error: No alias or index file found"},
		{"line one\nline two\n", "line one | line two"},
		{long, long[len(long)-stderrTailBytes:]},
	}
	for _, tt := range tests {
		if got := tail([]byte(tt.in)); got != tt.want {
			t.Errorf("tail(%.40q) = %.60q, want %.60q", tt.in, got, tt.want)
		}
	}
}

func TestVersionReal(t *testing.T) {
	if _, err := exec.LookPath("blastn"); err != nil {
		if os.Getenv("BLASTFLEET_REQUIRE_REAL") == "1" {
			t.Fatal("blastn is not on PATH (BLASTFLEET_REQUIRE_REAL=1)")
		}
		t.Skip("blastn is not on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := Version(ctx, "blastn")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+\+$`).MatchString(v) {
		t.Errorf("Version = %q, want like 2.12.0+", v)
	}
}

func TestVersionMissingProgram(t *testing.T) {
	_, err := Version(context.Background(), "blastfleet-no-such-program")
	if err == nil || !strings.Contains(err.Error(), "is BLAST+ installed?") {
		t.Errorf("Version of a missing program: %v", err)
	}
}

// psiblast's note that a query converged stays where psiblast printed it:
// after the query's last line, below a blank line.
func TestParseConvergedNote(t *testing.T) {
	f := mustFormat(t, "6 qseqid sseqid evalue bitscore")
	row := func(q, s string) string { return q + "\t" + s + "\t1e-5\t50.0\t101\t300\n" }
	out := row("q1", "s1") + row("q1", "s1") + "\nSearch has CONVERGED!\n" + row("q2", "s2")
	lines, err := Parse([]byte(out), f)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, l := range lines {
		text += string(l.Text)
	}
	want := "q1\ts1\t1e-5\t50.0\nq1\ts1\t1e-5\t50.0\n\nSearch has CONVERGED!\nq2\ts2\t1e-5\t50.0\n"
	if len(lines) != 3 || text != want {
		t.Errorf("%d lines, text %q, want 3 lines, %q", len(lines), text, want)
	}
	if _, err := Parse([]byte("\nSearch has CONVERGED!\n"+row("q1", "s1")), f); err == nil {
		t.Error("a note before any hit: no error")
	}
}
