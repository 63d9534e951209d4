package blast

import (
	"slices"
	"testing"
)

func TestBatchEnds(t *testing.T) {
	for _, c := range []struct {
		name    string
		lengths []int
		b       int
		want    []int
	}{
		// 300-letter queries and B = 10,000: 33 queries hold 9,900
		// letters, so the 34th closes the batch (docs/concepts.md#the-correctness-contract).
		{"34 per batch", repeat(300, 70), 10000, []int{34, 68, 70}},
		{"exactly B closes", []int{5000, 5000, 1, 1}, 10000, []int{2, 4}},
		{"a query over B is a batch alone", []int{10, 20000, 10}, 10000, []int{2, 3}},
		{"alone", []int{3, 4, 5}, Alone, []int{1, 2, 3}},
		{"empty", nil, 10000, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := BatchEnds(c.lengths, c.b); !slices.Equal(got, c.want) {
				t.Fatalf("BatchEnds = %v, want %v", got, c.want)
			}
		})
	}
}

func repeat(n, times int) []int {
	out := make([]int, times)
	for i := range out {
		out[i] = n
	}
	return out
}

func TestBatchLetters(t *testing.T) {
	task := func(v string) []Option { return []Option{{Name: "task", Value: v}} }
	for _, c := range []struct {
		p    Program
		opts []Option
		b    Batching
		want int
	}{
		{Blastp, nil, BatchingBLAST, 10000},
		{Blastx, nil, "", 10002},
		{Tblastn, nil, BatchingBLAST, 20000},
		{Tblastx, nil, BatchingBLAST, 10002},
		{Blastn, nil, BatchingBLAST, blastnBatchLetters["megablast"]},
		{Blastn, task("dc-megablast"), BatchingBLAST, blastnBatchLetters["dc-megablast"]},
		{Blastn, task("blastn"), BatchingBLAST, blastnBatchLetters["blastn"]},
		{Blastp, nil, BatchingAlone, 1},
		{Rpsblast, nil, BatchingBLAST, 10000},
		{Rpstblastn, nil, BatchingBLAST, 10000},
		{Psiblast, nil, BatchingBLAST, Alone},
	} {
		if got := BatchLetters(c.p, c.opts, c.b); got != c.want {
			t.Errorf("BatchLetters(%s, %v, %q) = %d, want %d", c.p, c.opts, c.b, got, c.want)
		}
	}
	if _, err := ParseBatching("each"); err == nil {
		t.Error("ParseBatching(each): no error")
	}
}
