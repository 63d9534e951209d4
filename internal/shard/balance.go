package shard

import (
	"container/heap"
	"sort"
)

// balance assigns sequences to shards by letters, as mpiformatdb did:
// longest first (ties by ordinal), each to the shard with the fewest letters
// so far (ties by smallest shard id). It returns the shard of each ordinal.
// Greedy longest-first keeps max-min shard letters within the longest
// sequence, so no shard makes a search wait much longer than the others.
func balance(letters []int64, shards int) []int {
	order := make([]int, len(letters))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return letters[order[a]] > letters[order[b]]
	})
	h := make(loadHeap, shards)
	for i := range h {
		h[i] = load{shard: i}
	}
	assign := make([]int, len(letters))
	for _, ord := range order {
		assign[ord] = h[0].shard
		h[0].letters += letters[ord]
		heap.Fix(&h, 0)
	}
	return assign
}

type load struct {
	shard   int
	letters int64
}

// loadHeap is a min-heap of shard loads ordered by (letters, shard).
type loadHeap []load

func (h loadHeap) Len() int { return len(h) }
func (h loadHeap) Less(i, j int) bool {
	if h[i].letters != h[j].letters {
		return h[i].letters < h[j].letters
	}
	return h[i].shard < h[j].shard
}
func (h loadHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *loadHeap) Push(x any)   { *h = append(*h, x.(load)) }
func (h *loadHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
