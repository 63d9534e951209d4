package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
)

// writeRecord writes one FASTA record, 70 letters a line.
func writeRecord(w io.Writer, id, desc string, s []byte) error {
	head := ">" + id
	if desc != "" {
		head += " " + desc
	}
	if _, err := fmt.Fprintln(w, head); err != nil {
		return err
	}
	for i := 0; i < len(s); i += 70 {
		if _, err := fmt.Fprintf(w, "%s\n", s[i:min(i+70, len(s))]); err != nil {
			return err
		}
	}
	return nil
}

// mutator draws mutations from one seeded source. Events are placed by
// geometric gaps, so a rate p mutates each letter independently with
// probability p at the cost of one draw per event, not per letter.
type mutator struct {
	r     *rand.Rand
	alpha string    // letters
	cum   []float64 // cumulative background frequencies of alpha (nil: uniform)
}

func newMutator(seed, stream uint64, alpha string, freqs []float64) *mutator {
	m := &mutator{r: rand.New(rand.NewPCG(seed, stream)), alpha: alpha}
	if freqs != nil {
		total := 0.0
		for _, f := range freqs {
			total += f
		}
		acc := 0.0
		for _, f := range freqs {
			acc += f / total
			m.cum = append(m.cum, acc)
		}
	}
	return m
}

// letter draws one letter from the background.
func (m *mutator) letter() byte {
	if m.cum == nil {
		return m.alpha[m.r.IntN(len(m.alpha))]
	}
	x := m.r.Float64()
	for i, c := range m.cum {
		if x < c {
			return m.alpha[i]
		}
	}
	return m.alpha[len(m.alpha)-1]
}

// random is n background letters.
func (m *mutator) random(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = m.letter()
	}
	return b
}

// gap is the number of letters before the next event of rate p.
func (m *mutator) gap(p float64) int {
	if p <= 0 {
		return math.MaxInt32
	}
	if p >= 1 {
		return 0
	}
	return int(math.Log(1-m.r.Float64()) / math.Log(1-p))
}

// substitute returns s with each letter replaced, with probability p, by
// a different letter: p is the substitution rate (the p-distance).
func (m *mutator) substitute(s []byte, p float64) []byte {
	out := append([]byte(nil), s...)
	for i := m.gap(p); i < len(out); i += 1 + m.gap(p) {
		c := m.letter()
		for c == out[i] {
			c = m.letter()
		}
		out[i] = c
	}
	return out
}

// indel returns s with insertion or deletion events at rate p per letter,
// each of 1..maxLen letters (half of them deletions).
func (m *mutator) indel(s []byte, p float64, maxLen int) []byte {
	out := make([]byte, 0, len(s)+len(s)/50+16)
	i := 0
	for {
		next := i + m.gap(p)
		if next >= len(s) {
			return append(out, s[i:]...)
		}
		out = append(out, s[i:next]...)
		n := 1 + m.r.IntN(maxLen)
		if m.r.IntN(2) == 0 {
			i = min(next+n, len(s))
			continue
		}
		out = append(out, m.random(n)...)
		i = next
	}
}

// insert returns s with piece inserted at position at.
func insert(s []byte, at int, piece []byte) []byte {
	out := make([]byte, 0, len(s)+len(piece))
	return append(append(append(out, s[:at]...), piece...), s[at:]...)
}

var complement = func() [256]byte {
	var c [256]byte
	for i := range c {
		c[i] = byte(i)
	}
	for _, p := range []string{"AT", "TA", "CG", "GC"} {
		c[p[0]] = p[1]
	}
	return c
}()

// revcomp is the reverse complement of a nucleotide sequence.
func revcomp(s []byte) []byte {
	out := make([]byte, len(s))
	for i, c := range s {
		out[len(s)-1-i] = complement[c]
	}
	return out
}

// WriteFiles runs a set's Write into two files (buffered).
func WriteFiles(write func(db, queries io.Writer) error, dbPath, queryPath string) error {
	df, err := os.Create(dbPath)
	if err != nil {
		return err
	}
	defer df.Close()
	qf, err := os.Create(queryPath)
	if err != nil {
		return err
	}
	defer qf.Close()
	dw, qw := bufio.NewWriterSize(df, 1<<20), bufio.NewWriterSize(qf, 1<<20)
	if err := write(dw, qw); err != nil {
		return err
	}
	if err := dw.Flush(); err != nil {
		return err
	}
	if err := qw.Flush(); err != nil {
		return err
	}
	if err := df.Close(); err != nil {
		return err
	}
	return qf.Close()
}
