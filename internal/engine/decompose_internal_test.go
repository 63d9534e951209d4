package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestDecompose(t *testing.T) {
	sizes := []int64{100, 100, 100, 100}
	ids := []int{0, 1, 2, 3}
	one := [][]int{{0, 1, 2, 3}}
	batches := func(n int) []int64 {
		b := make([]int64, n)
		for i := range b {
			b[i] = 1000
		}
		return b
	}
	for _, c := range []struct {
		name        string
		batches     []int64
		share       float64
		segmentable bool
		fixed       bool
		groups      int
	}{
		{"many batches: query segmentation", batches(40), 0.07, true, false, 1},
		{"5 batches, cheap set-up: database segmentation", batches(5), 0.07, true, false, 2},
		{"one batch: a group per worker", batches(1), 0.07, true, false, 2},
		{"5 batches, costly set-up (megablast): one group", batches(5), 0.3, true, false, 1},
		{"not segmentable", batches(1), 0.07, false, false, 1},
		{"--group-bytes", batches(1), 0.07, true, true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			groups, why := decompose(sizes, ids, one, c.batches, 2, c.share, c.segmentable, c.fixed)
			if len(groups) != c.groups {
				t.Fatalf("%d groups (%s), want %d", len(groups), why, c.groups)
			}
			seen := 0
			for _, g := range groups {
				for _, s := range g {
					if s != seen {
						t.Fatalf("groups %v are not the shards in order", groups)
					}
					seen++
				}
			}
			if seen != len(sizes) {
				t.Fatalf("groups %v miss shards", groups)
			}
			if want := map[bool]string{true: "database segmentation", false: "query segmentation"}[c.groups > 1]; !strings.HasPrefix(why, want) {
				t.Errorf("reason %q, want %q", why, want)
			}
		})
	}
}

func TestBalanced(t *testing.T) {
	for _, c := range []struct {
		sizes []int64
		g     int
		want  string
	}{
		{[]int64{1, 1, 1, 1}, 2, "[[0 1] [2 3]]"},
		{[]int64{5, 1, 1, 1}, 2, "[[0] [1 2 3]]"},
		{[]int64{1, 1, 1}, 3, "[[0] [1] [2]]"},
		{[]int64{1, 1, 1, 9}, 3, "[[0 1] [2] [3]]"},
	} {
		if got := fmt.Sprint(balanced(c.sizes, c.g)); got != c.want {
			t.Errorf("balanced(%v, %d) = %s, want %s", c.sizes, c.g, got, c.want)
		}
	}
}
