package fasta

import "fmt"

// Alphabet is the set of letters a sequence may hold. The zero value is not
// a valid alphabet, so a forgotten argument fails loudly.
type Alphabet int

const (
	// Nucleotide is the IUPAC nucleotide codes plus '-' (gap).
	Nucleotide Alphabet = iota + 1
	// Protein is the IUPAC amino acid codes plus '*' (stop) and '-' (gap).
	Protein
)

// letters per alphabet, upper case; lower case is accepted too.
var alphabetLetters = map[Alphabet]string{
	Nucleotide: "ACGTURYKMSWBDHVN-",
	Protein:    "ABCDEFGHIKLMNPQRSTUVWXYZ*-",
}

// tables are built once so validation is one array lookup per byte.
var alphabetTables = func() map[Alphabet]*[256]bool {
	m := make(map[Alphabet]*[256]bool, len(alphabetLetters))
	for a, letters := range alphabetLetters {
		var t [256]bool
		for i := 0; i < len(letters); i++ {
			c := letters[i]
			t[c] = true
			if c >= 'A' && c <= 'Z' {
				t[c+'a'-'A'] = true
			}
		}
		m[a] = &t
	}
	return m
}()

// String names the alphabet as used in error messages.
func (a Alphabet) String() string {
	switch a {
	case Nucleotide:
		return "nucleotide"
	case Protein:
		return "protein"
	}
	return fmt.Sprintf("Alphabet(%d)", int(a))
}

// Valid reports whether c belongs to the alphabet.
func (a Alphabet) Valid(c byte) bool {
	t := alphabetTables[a]
	return t != nil && t[c]
}

func (a Alphabet) known() bool {
	return alphabetTables[a] != nil
}
