package scheduler

import "slices"

// Task is one BLAST invocation: a query block against a shard group.
type Task struct {
	Block int
	Group int
}

type entry struct {
	block      int
	unassigned []int // shard group ids, ascending
}

// Scheduler is Algorithm 1 of the Blue Gene/P mpiBLAST paper. The master
// keeps a FIFO list of unfinished query blocks, each with the set of shard
// groups not yet assigned; a worker asking for work gets, scanning from the
// head, a task whose shard group it already caches (smallest group id
// first), and only when none fits an uncached one.
//
// It holds the blocks not yet fully assigned, and is not safe for
// concurrent use: the master loop owns it.
type Scheduler struct {
	groups int
	queue  []*entry
	left   int
}

// New returns a scheduler for a database split into groups shard groups.
func New(groups int) *Scheduler { return &Scheduler{groups: groups} }

// Add appends a query block to the tail of the FIFO list, to be searched
// against every shard group.
func (s *Scheduler) Add(block int) {
	all := make([]int, s.groups)
	for g := range all {
		all[g] = g
	}
	s.AddGroups(block, all)
}

// AddGroups appends a query block to be searched against the given shard
// groups only (ascending): a mixed decomposition searches its last blocks
// against finer groups than the others.
func (s *Scheduler) AddGroups(block int, groups []int) {
	e := &entry{block: block, unassigned: slices.Clone(groups)}
	s.queue = append(s.queue, e)
	s.left += len(groups)
}

// Requeue puts a task back at the head, e.g. after its worker failed.
func (s *Scheduler) Requeue(t Task) {
	s.queue = append([]*entry{{block: t.Block, unassigned: []int{t.Group}}}, s.queue...)
	s.left++
}

// Unassigned is the number of tasks not yet handed out.
func (s *Scheduler) Unassigned() int { return s.left }

// Next picks a task for a worker; cached reports whether the worker holds
// a shard group. ok is false when nothing is left.
func (s *Scheduler) Next(cached func(group int) bool) (t Task, ok bool) {
	for qi, e := range s.queue {
		for gi, g := range e.unassigned {
			if cached(g) {
				return s.take(qi, gi), true
			}
		}
	}
	for qi, e := range s.queue {
		if len(e.unassigned) > 0 {
			return s.take(qi, 0), true
		}
	}
	return Task{}, false
}

func (s *Scheduler) take(qi, gi int) Task {
	e := s.queue[qi]
	t := Task{Block: e.block, Group: e.unassigned[gi]}
	e.unassigned = append(e.unassigned[:gi], e.unassigned[gi+1:]...)
	if len(e.unassigned) == 0 {
		s.queue = append(s.queue[:qi], s.queue[qi+1:]...)
	}
	s.left--
	return t
}

// Drop removes a block's unassigned tasks, e.g. when its chunk failed.
func (s *Scheduler) Drop(block int) {
	for i := 0; i < len(s.queue); {
		if s.queue[i].block == block {
			s.left -= len(s.queue[i].unassigned)
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			continue
		}
		i++
	}
}
