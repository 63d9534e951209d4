package output

import (
	"fmt"
	"strings"
)

// Line is one kept line of a block: which rank holds its text, and its size.
type Line struct {
	Holder int
	Size   int64
}

// Block is a run of consecutive output bytes (one or more whole queries)
// that the master hands to the strategy at once, with how many bytes each
// rank holds of it.
type Block struct {
	Seq    int           // 0-based block number in output order
	Offset int64         // byte offset in the output
	Size   int64         // bytes
	Held   map[int]int64 // rank -> bytes of the block it holds
	Lines  []Line        // the block's lines in output order
}

// NewBlock describes the lines at offset as block seq.
func NewBlock(seq int, offset int64, lines []Line) *Block {
	b := &Block{Seq: seq, Offset: offset, Held: map[int]int64{}, Lines: lines}
	for _, l := range lines {
		b.Size += l.Size
		b.Held[l.Holder] += l.Size
	}
	return b
}

// Write is one write of a block: the lines [From, To) written by Writer,
// gathered into one contiguous range (one part of an S3 object), or, with
// Own, only the writer's own lines among them, each run at its offset, so
// nothing travels (files only: S3 parts are contiguous).
type Write struct {
	Writer   int
	From, To int
	Own      bool
}

// Layout is what a plan must respect.
type Layout struct {
	Workers int   // worker ranks are 1..Workers; the master is rank 0
	MinPart int64 // the sink's smallest write but the output's last (MinBlock)
}

// Flow is how a block's lines travel to the ranks that write them.
type Flow int

const (
	// Gather: as soon as the master plans a block, holders send their
	// lines to each write's writer and go on searching.
	Gather Flow = iota
	// Collective: every worker enters each block's write between two of
	// its tasks and waits there for all the others (MPI-IO's collective
	// write), exchanging lines with the writers of the block's domains.
	Collective
	// ToMaster: workers send every result line to the master with each
	// task's hits; the master writes.
	ToMaster
)

// Strategy decides how the ranks write a block (docs/engine.md).
type Strategy interface {
	Name() string
	Flow() Flow
	// Plan splits a block into writes, in output order.
	Plan(b *Block, l Layout) []Write
}

// Strategies lists the strategies' names, the default first.
var Strategies = []string{"worker-merge", "worker-individual", "worker-collective", "master-writing"}

// ParseStrategy returns the named strategy.
func ParseStrategy(name string) (Strategy, error) {
	switch name {
	case "", "worker-merge":
		return WorkerMerge{}, nil
	case "worker-individual":
		return WorkerIndividual{}, nil
	case "worker-collective":
		return WorkerCollective{}, nil
	case "master-writing":
		return MasterWriting{}, nil
	}
	return nil, fmt.Errorf("--strategy %q: unknown (want %s)", name, strings.Join(Strategies, ", "))
}

// mostBytes returns the rank holding most bytes, skipping ranks in skip
// when another holder is left (ties: the lowest rank); -1 for no holder.
func mostBytes(held map[int]int64, skip map[int]bool) int {
	best, bestBytes := -1, int64(-1)
	for pass := 0; pass < 2 && best < 0; pass++ {
		for r, n := range held {
			if pass == 0 && skip[r] {
				continue
			}
			if n > bestBytes || (n == bestBytes && r < best) {
				best, bestBytes = r, n
			}
		}
	}
	return best
}
