package blast

import (
	"fmt"
	"os/exec"
	"strings"
)

// Program is a BLAST+ search program.
type Program string

const (
	Blastn     Program = "blastn"
	Blastp     Program = "blastp"
	Blastx     Program = "blastx"
	Tblastn    Program = "tblastn"
	Tblastx    Program = "tblastx"
	Rpsblast   Program = "rpsblast"
	Rpstblastn Program = "rpstblastn"
	Psiblast   Program = "psiblast"
)

// Programs lists the supported programs.
var Programs = []Program{Blastn, Blastp, Blastx, Tblastn, Tblastx, Rpsblast, Rpstblastn, Psiblast}

// ProgramList names the programs for help texts: "blastn, …, or psiblast".
func ProgramList() string {
	names := make([]string, len(Programs))
	for i, p := range Programs {
		names[i] = string(p)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseProgram validates a program name.
func ParseProgram(s string) (Program, error) {
	for _, p := range Programs {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, len(Programs))
	for i, p := range Programs {
		names[i] = string(p)
	}
	return "", fmt.Errorf("unknown program %q (want one of %s)", s, strings.Join(names, ", "))
}

// DBType is the database type the program searches: "nucl" or "prot"
// (a profile database, for rpsblast and rpstblastn, is a protein one).
func (p Program) DBType() string {
	switch p {
	case Blastp, Blastx, Rpsblast, Rpstblastn, Psiblast:
		return "prot"
	}
	return "nucl"
}

// QueryType is the type of the program's queries: "nucl" or "prot".
func (p Program) QueryType() string {
	switch p {
	case Blastp, Tblastn, Rpsblast, Psiblast:
		return "prot"
	}
	return "nucl"
}

// LengthDependentEvalues reports whether the program's E-values depend on
// the subject's length (Spouge's finite-size correction in gapped protein
// alignments), so equal printed E-values may hide an order by length.
func (p Program) LengthDependentEvalues() bool {
	switch p {
	case Blastp, Blastx, Tblastn, Rpsblast, Rpstblastn, Psiblast:
		return true
	}
	return false
}

// Profile reports whether the program searches a database of profiles
// (position-specific score matrices) built by makeprofiledb, whose
// .rps, .loo, .aux and .freq files hold the profiles, rather than a
// database of sequences.
func (p Program) Profile() bool { return p == Rpsblast || p == Rpstblastn }

// WholeDatabase reports whether every task must search the whole database
// in one BLAST run, as one shard group (docs/concepts.md#profile-and-iterated-searches):
// psiblast builds each next iteration's profile from the hits of the whole
// database, and its output repeats subjects per iteration, which the merge
// of several groups cannot order. rpsblast and rpstblastn are searched
// whole too: their lines from halves of a profile database under the
// whole's statistics equal the whole's, but the merge across profile
// shards is not verified yet.
func (p Program) WholeDatabase() bool { return p == Psiblast || p.Profile() }

// Command is the executable that runs the program: its own name, except
// that Debian's BLAST+ installs rpsblast as rpsblast+ (the name rpsblast
// was its legacy BLAST's), used when rpsblast is not on PATH.
func (p Program) Command() string {
	if p == Rpsblast {
		if _, err := exec.LookPath("rpsblast"); err != nil {
			if _, err := exec.LookPath("rpsblast+"); err == nil {
				return "rpsblast+"
			}
		}
	}
	return string(p)
}

// DefaultMaxTargetSeqs is BLAST+'s own default -max_target_seqs.
const DefaultMaxTargetSeqs = 500
