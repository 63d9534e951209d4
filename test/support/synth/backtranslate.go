package synth

import (
	"bytes"
	"fmt"
)

// codons code each amino acid with one codon, so a translated search of
// the coding sequence finds what a protein search of the protein finds.
var codons = map[byte]string{'A': "GCT", 'C': "TGT", 'D': "GAT", 'E': "GAA", 'F': "TTT", 'G': "GGT", 'H': "CAT",
	'I': "ATT", 'K': "AAA", 'L': "CTG", 'M': "ATG", 'N': "AAT", 'P': "CCG", 'Q': "CAG", 'R': "CGT",
	'S': "AGC", 'T': "ACC", 'V': "GTG", 'W': "TGG", 'Y': "TAT"}

// BackTranslate turns protein FASTA into coding nucleotide FASTA: the same
// deflines, one codon per amino acid.
func BackTranslate(fa []byte) ([]byte, error) {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(fa, []byte("\n")) {
		if len(line) == 0 || line[0] == '>' {
			out.Write(line)
			continue
		}
		for _, aa := range bytes.TrimSpace(line) {
			c, ok := codons[aa]
			if !ok {
				return nil, fmt.Errorf("no codon for %q", aa)
			}
			out.WriteString(c)
		}
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}
