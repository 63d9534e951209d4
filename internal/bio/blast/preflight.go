package blast

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Preflight asks BLAST+ itself whether it accepts a search's options, by
// running the program with them on a one-sequence database of its type
// made in a temporary directory (well under a second). Option values that
// pass ParseOption can still be refused together or by the program:
// -word_size 3 for blastn (at least 4), -penalty 5, gap costs the matrix
// does not support, a -task of another program. Found here, before any
// partition starts, such a search fails with BLAST's own words instead of
// failing every chunk.
func Preflight(ctx context.Context, program Program, opts []Option) error {
	dir, err := os.MkdirTemp("", "blastfleet-preflight-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	seq := func(t string) string {
		if t == "prot" {
			return "MKVLAAGIVGLLLAQPTWSRDEYHNCFKVLAAGIVGLLLAQPTWSRDEYHNCF"
		}
		return "ACGTTGCAAGCTTAGCCGATCGATTACGGCATGCAAGTCCGATAGCTTAGGCATCGATCGGA"
	}
	db, query := filepath.Join(dir, "db"), filepath.Join(dir, "q.fa")
	if err := os.WriteFile(db+".fa", []byte(">s1\n"+seq(program.DBType())+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(query, []byte(">q1\n"+seq(program.QueryType())+"\n"), 0o644); err != nil {
		return err
	}
	args := []string{"-in", db + ".fa", "-dbtype", program.DBType(), "-out", db}
	// A taxid filter needs the taxid it names in the database, or BLAST
	// refuses the search ("Taxonomy ID(s) not found"): the one sequence
	// gets the first taxid the filter lists.
	for _, o := range opts {
		if o.Name == "taxids" || o.Name == "negative_taxids" {
			first, _, _ := strings.Cut(o.Value, ",")
			if err := os.WriteFile(db+".map", []byte("s1 "+first+"\n"), 0o644); err != nil {
				return err
			}
			args = append(args, "-parse_seqids", "-taxid_map", db+".map")
			break
		}
	}
	if out, err := exec.CommandContext(ctx, "makeblastdb", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("checking the search with BLAST+: makeblastdb: %w: %s", err, out)
	}
	if program.Profile() {
		if err := profileDB(ctx, db); err != nil {
			return err
		}
	}
	format, err := ParseFormat("6")
	if err != nil {
		return err
	}
	_, err = Run(ctx, Invocation{Program: program, DB: db, Query: query, Format: format, Options: opts})
	// Only an argument error is a refusal: BLAST failing otherwise (no
	// room to write, a crash, a signal) says nothing of the search.
	var xe *ExitError
	if errors.As(err, &xe) && xe.UsageError() {
		return &RefusedError{Program: program, Options: opts, StderrTail: xe.StderrTail}
	}
	if err != nil {
		return fmt.Errorf("checking the search with BLAST+ (no refusal: the check could not run here): %w", err)
	}
	return nil
}

// OlderVersion says whether BLAST+ version a ("2.9.0+") is older than b;
// false when either cannot be read.
func OlderVersion(a, b string) bool {
	va, oka := parseVersion(a)
	vb, okb := parseVersion(b)
	return oka && okb && slices.Compare(va, vb) < 0
}

// parseVersion reads "2.12.0+" as [2 12 0].
func parseVersion(v string) ([]int, bool) {
	fields := strings.Split(strings.TrimSuffix(strings.TrimSpace(v), "+"), ".")
	out := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return out, len(out) > 0
}

// RefusedError is BLAST+'s own refusal of a search's options, as opposed
// to a check that could not run (no room for its temporary database, no
// makeblastdb): only a refusal says the search itself is wrong.
type RefusedError struct {
	Program    Program
	Options    []Option
	StderrTail string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("BLAST+ refuses the search (%s %s): %s", e.Program, strings.Join(Args(e.Options), " "), e.StderrTail)
}

// Refuses says whether err is BLAST+'s own refusal of a search
// (Preflight's RefusedError).
func Refuses(err error) bool {
	var re *RefusedError
	return errors.As(err, &re)
}

// profileDB turns the one-sequence database db into a profile database of
// that sequence's PSSM, in place: psiblast writes the PSSM of the sequence
// searched against itself, makeprofiledb builds the profiles.
func profileDB(ctx context.Context, db string) error {
	pssm, list := db+".smp", db+".pn"
	steps := [][]string{
		{"psiblast", "-query", db + ".fa", "-db", db, "-num_iterations", "1", "-out_pssm", pssm, "-save_pssm_after_last_round"},
		{"makeprofiledb", "-in", list, "-out", db},
	}
	if err := os.WriteFile(list, []byte(pssm+"\n"), 0o644); err != nil {
		return err
	}
	for _, argv := range steps {
		if out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("checking the search with BLAST+: %s: %w: %s", argv[0], err, out)
		}
	}
	return nil
}
