package fasta

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func readLimited(t *testing.T, data []byte, l Limits) error {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "in.fa", Nucleotide)
	if err != nil {
		t.Fatal(err)
	}
	r.SetLimits(l)
	for {
		if _, err := r.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// Each limit fails with an error naming the file, line and record, and
// input within the limits reads as before.
func TestLimits(t *testing.T) {
	long := ">a\nACGT\n>b one\n" + strings.Repeat("ACGTACGTAC\n", 5) + ">c\nAC\n"
	for _, tc := range []struct {
		name string
		in   string
		l    Limits
		want string // "" : reads
	}{
		{"within", long, Limits{MaxSequence: 50, MaxLine: 100}, ""},
		{"sequence", long, Limits{MaxSequence: 49, MaxLine: 100}, `in.fa:8: record "b": sequence longer than 49 letters (record header at line 3)`},
		{"line", ">a\n" + strings.Repeat("A", 300<<10) + "\n", Limits{MaxSequence: 1 << 30, MaxLine: 100 << 10}, `in.fa:2: record "a": line longer than 102400 bytes`},
		{"header line", ">" + strings.Repeat("h", 300<<10) + "\nACGT\n", Limits{MaxSequence: 1 << 30, MaxLine: 100 << 10}, `in.fa:1: line longer than 102400 bytes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readLimited(t, []byte(tc.in), tc.l)
			var fe *Error
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("read failed: %v", err)
			case tc.want != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// A gzip stream that inflates beyond the ratio is refused, naming where;
// ordinary FASTA passes.
func TestGzipRatio(t *testing.T) {
	defer func(g int64) { gzipGrace = g }(gzipGrace)
	gzipGrace = 1 << 20
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	bomb := gz(">a\n" + strings.Repeat("A", 8<<20) + "\n")
	err := readLimited(t, bomb, Limits{MaxSequence: 1 << 30, MaxLine: 1 << 30, MaxGzipRatio: 250})
	if err == nil || !strings.Contains(err.Error(), "gzip stream expands more than 250x") || !strings.Contains(err.Error(), `record "a"`) {
		t.Errorf("bomb: %v", err)
	}
	var b strings.Builder
	for i := range 20000 {
		b.WriteString(">s" + strconv.Itoa(i) + "\n")
		for j := range 100 {
			b.WriteByte("ACGT"[(i*7+j*j)%4])
		}
		b.WriteByte('\n')
	}
	if err := readLimited(t, gz(b.String()), DefaultLimits); err != nil {
		t.Errorf("ordinary gzip FASTA: %v", err)
	}
}
