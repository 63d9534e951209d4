package blast

import (
	"fmt"
	"strings"
)

// Program is a BLAST+ search program.
type Program string

const (
	Blastn  Program = "blastn"
	Blastp  Program = "blastp"
	Blastx  Program = "blastx"
	Tblastn Program = "tblastn"
	Tblastx Program = "tblastx"
)

// Programs lists the supported programs.
var Programs = []Program{Blastn, Blastp, Blastx, Tblastn, Tblastx}

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

// DBType is the database type the program searches: "nucl" or "prot".
func (p Program) DBType() string {
	switch p {
	case Blastp, Blastx:
		return "prot"
	}
	return "nucl"
}

// QueryType is the type of the program's queries: "nucl" or "prot".
func (p Program) QueryType() string {
	switch p {
	case Blastp, Tblastn:
		return "prot"
	}
	return "nucl"
}

// LengthDependentEvalues reports whether the program's E-values depend on
// the subject's length (Spouge's finite-size correction in gapped protein
// alignments), so equal printed E-values may hide an order by length.
func (p Program) LengthDependentEvalues() bool {
	switch p {
	case Blastp, Blastx, Tblastn:
		return true
	}
	return false
}

// DefaultMaxTargetSeqs is BLAST+'s own default -max_target_seqs.
const DefaultMaxTargetSeqs = 500
