package simulate

import (
	"bufio"
	"fmt"
	"io"
)

// Query is what the model needs of a query: the id printed in qseqid and
// the length. Its index in the query set (the engine's global query index)
// is passed separately, and keys its hits.
type Query struct {
	ID  string
	Len int
}

// Queries generates n queries with lengths from sizes, from one stream
// keyed by the seed: query i is the same in every set of more than i
// queries.
func Queries(seed uint64, n int, sizes Histogram) ([]Query, error) {
	if err := sizes.Validate(); err != nil {
		return nil, fmt.Errorf("simulate: query sizes: %w", err)
	}
	if sizes.Min() < 1 {
		return nil, fmt.Errorf("simulate: query sizes: smallest value %d, want at least 1", sizes.Min())
	}
	r := stream(seed, domainQueries, 0, 0)
	qs := make([]Query, n)
	for i := range qs {
		qs[i] = Query{ID: fmt.Sprintf("sim-q%d", i), Len: int(sizes.Sample(r))}
	}
	return qs, nil
}

// WriteFASTA writes queries as FASTA with placeholder letters ("ACGT"
// repeated: valid nucleotide and protein letters), so the engine can load a
// simulated query set like a real one.
func WriteFASTA(w io.Writer, qs []Query) error {
	const pattern = "ACGT"
	line := make([]byte, 0, 81)
	bw := bufio.NewWriter(w)
	for _, q := range qs {
		fmt.Fprintf(bw, ">%s\n", q.ID)
		for i := 0; i < q.Len; i += 80 {
			line = line[:0]
			for j := i; j < min(i+80, q.Len); j++ {
				line = append(line, pattern[j%len(pattern)])
			}
			line = append(line, '\n')
			bw.Write(line)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing simulated queries: %w", err)
	}
	return nil
}
