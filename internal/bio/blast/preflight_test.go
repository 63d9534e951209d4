package blast

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestPreflight(t *testing.T) {
	testenv.RequireTools(t, "blastn", "blastp", "blastx", "tblastn", "tblastx", "rpstblastn", "psiblast", "makeblastdb", "makeprofiledb")
	testenv.RequireTools(t, Rpsblast.Command())
	ctx := context.Background()
	for _, p := range Programs {
		if err := Preflight(ctx, p, nil); err != nil {
			t.Errorf("%s without options: %v", p, err)
		}
	}
	ok := []struct {
		program Program
		opts    []Option
	}{
		{Blastn, []Option{{"task", "blastn"}, {"word_size", "11"}, {"dust", "20 64 1"}}},
		{Blastp, []Option{{"matrix", "PAM30"}, {"gapopen", "9"}, {"gapextend", "1"}, {"comp_based_stats", "0"}}},
		{Blastn, []Option{{"ungapped", ""}}},
		{Blastp, []Option{{"taxids", "9606,10090"}}},
		{Blastn, []Option{{"negative_taxids", "9606"}}},
		{Psiblast, []Option{{"num_iterations", "3"}}},
		{Rpsblast, []Option{{"comp_based_stats", "0"}}},
	}
	for _, c := range ok {
		if err := Preflight(ctx, c.program, c.opts); err != nil {
			t.Errorf("%s %v: %v", c.program, c.opts, err)
		}
	}
	// Values of the right form that BLAST refuses, with its reason.
	bad := []struct {
		program Program
		opts    []Option
		want    string
	}{
		{Blastn, []Option{{"word_size", "3"}}, `"word_size". Illegal value, expected >=4`},
		{Blastn, []Option{{"penalty", "5"}}, `"penalty". Illegal value, expected <=0`},
		{Blastp, []Option{{"gapopen", "99"}, {"gapextend", "99"}}, "not supported for BLOSUM62"},
		{Blastn, []Option{{"task", "blastp"}}, "task"},
		{Blastn, []Option{{"taxids", "9606"}, {"negative_taxids", "10090"}}, "taxids"},
		{Rpstblastn, []Option{{"word_size", "1"}}, "word_size"},
	}
	for _, c := range bad {
		err := Preflight(ctx, c.program, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "BLAST+ refuses the search") || !Refuses(err) {
			t.Errorf("%s %v: err = %v, want BLAST's reason %q", c.program, c.opts, err, c.want)
		}
	}
}

func TestUsageError(t *testing.T) {
	for _, c := range []struct {
		e    ExitError
		want bool
	}{
		{ExitError{ExitCode: 1, StderrTail: `Error: Argument "word_size". Illegal value, expected >=4:  ` + "`3'"}, true},
		{ExitError{ExitCode: 1, StderrTail: `Error:  (CArgException::eConvert) Argument "word_size". Argument cannot be converted`}, true},
		{ExitError{ExitCode: 1, StderrTail: "BLAST query/options error: FOO is not a supported matrix"}, true},
		{ExitError{ExitCode: 2, StderrTail: "BLAST Database error: No alias or index file found"}, false},
		{ExitError{ExitCode: 3, StderrTail: "BLAST engine error: Warning: Sequence contains no data"}, false},
		{ExitError{ExitCode: -1, Signal: "killed"}, false},
	} {
		if got := c.e.UsageError(); got != c.want {
			t.Errorf("UsageError(%d, %q) = %v, want %v", c.e.ExitCode, c.e.StderrTail, got, c.want)
		}
	}
}

// A check that cannot run is no refusal: a site whose makeblastdb is
// missing, or whose temporary directory is full, must not make a search
// invalid for every site (issue 30, finding 10).
func TestPreflightThatCannotRunIsNoRefusal(t *testing.T) {
	testenv.RequireTools(t, "blastn")
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir()) // no makeblastdb, no blastn
	err := Preflight(context.Background(), Blastn, []Option{{"word_size", "3"}})
	if err == nil || Refuses(err) {
		t.Fatalf("Preflight without BLAST+ on PATH: %v (refusal %v), want an error that is no refusal", err, Refuses(err))
	}
	t.Setenv("PATH", path)
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	err = Preflight(context.Background(), Blastn, nil)
	if err == nil || Refuses(err) {
		t.Fatalf("Preflight with no temporary directory: %v, want an error that is no refusal", err)
	}
}

// A BLAST run that fails for want of room (a full scratch directory) or
// crashes is no refusal either: it was one, since any failure of the
// check's own run counted, and a site with a full /tmp marked the search
// invalid for every site (issue 30, finding 10).
func TestPreflightFailingRunIsNoRefusal(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb")
	for _, c := range []struct{ name, script string }{
		{"full scratch", "echo 'BLAST engine error: Could not write to /tmp/x: No space left on device' >&2; exit 3"},
		{"killed", "kill -9 $$"},
		{"usage", `echo 'Error: Argument "word_size". Illegal value, expected >=4' >&2; exit 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fakeBLAST(t, c.script)
			err := Preflight(context.Background(), Blastn, nil)
			if want := c.name == "usage"; err == nil || Refuses(err) != want {
				t.Fatalf("Preflight whose blastn %s: %v (refusal %v), want an error, a refusal: %v", c.name, err, Refuses(err), want)
			}
		})
	}
}

func TestOlderVersion(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"2.9.0+", "2.12.0+", true},
		{"2.12.0+", "2.12.0+", false},
		{"2.16.0+", "2.12.0+", false},
		{"2.12.0+", "2.12.1+", true},
		{"2.12+", "2.12.0+", true},
		{"", "2.12.0+", false},
		{"2.9.0+", "", false},
		{"x.y", "2.12.0+", false},
	} {
		if got := OlderVersion(c.a, c.b); got != c.want {
			t.Errorf("OlderVersion(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
