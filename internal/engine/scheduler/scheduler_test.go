package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// caches returns a cached func for a fixed set of groups.
func caches(groups ...int) func(int) bool {
	return func(g int) bool { return slices.Contains(groups, g) }
}

var nothingCached = caches()

// newWithBlocks returns a scheduler of groups groups holding blocks 0..blocks-1.
func newWithBlocks(groups, blocks int) *Scheduler {
	s := New(groups)
	for b := range blocks {
		s.Add(b)
	}
	return s
}

// step is one request: a worker's cache and the task it must get.
type step struct {
	cached []int
	want   Task
}

func TestSchedulerNext(t *testing.T) {
	tests := []struct {
		name           string
		groups, blocks int
		steps          []step
	}{
		{
			name:   "no cache: FIFO, smallest group of the head block",
			groups: 3, blocks: 2,
			steps: []step{
				{nil, Task{0, 0}}, {nil, Task{0, 1}}, {nil, Task{0, 2}},
				{nil, Task{1, 0}}, {nil, Task{1, 1}}, {nil, Task{1, 2}},
			},
		},
		{
			name:   "cached group preferred over the head's smallest",
			groups: 4, blocks: 2,
			steps: []step{
				{[]int{2}, Task{0, 2}},
				{[]int{3, 1}, Task{0, 1}}, // smallest cached id in the block
				{[]int{3}, Task{0, 3}},
				{nil, Task{0, 0}},
			},
		},
		{
			name:   "cached group in a later block beats an uncached one in the head",
			groups: 3, blocks: 3,
			steps: []step{
				{[]int{0}, Task{0, 0}},
				{[]int{0}, Task{1, 0}},
				{[]int{0}, Task{2, 0}},
				// No cached fit left: the head block's smallest unassigned.
				{[]int{0}, Task{0, 1}},
			},
		},
		{
			name:   "earliest block with a fit wins over a smaller cached id later",
			groups: 4, blocks: 2,
			steps: []step{
				{nil, Task{0, 0}},
				// Block 0 still has 1,2,3; the worker caches 0 and 3: block 1's
				// group 0 is later than block 0's group 3.
				{[]int{0, 3}, Task{0, 3}},
				{[]int{0, 3}, Task{1, 0}},
				{[]int{0, 3}, Task{1, 3}},
				{[]int{0, 3}, Task{0, 1}},
			},
		},
		{
			name:   "cache of a group outside the database is ignored",
			groups: 2, blocks: 1,
			steps: []step{
				{[]int{7}, Task{0, 0}},
				{[]int{7}, Task{0, 1}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newWithBlocks(tt.groups, tt.blocks)
			for i, st := range tt.steps {
				got, ok := s.Next(caches(st.cached...))
				if !ok || got != st.want {
					t.Fatalf("step %d (cached %v): got %+v ok=%v, want %+v", i, st.cached, got, ok, st.want)
				}
			}
		})
	}
}

func TestSchedulerUnassigned(t *testing.T) {
	s := New(3)
	if n := s.Unassigned(); n != 0 {
		t.Fatalf("new scheduler: Unassigned %d, want 0", n)
	}
	s.Add(0)
	s.Add(1)
	if n := s.Unassigned(); n != 6 {
		t.Fatalf("after two blocks: Unassigned %d, want 6", n)
	}
	for want := 5; want >= 0; want-- {
		if _, ok := s.Next(nothingCached); !ok {
			t.Fatalf("Next failed with %d left", want+1)
		}
		if n := s.Unassigned(); n != want {
			t.Fatalf("Unassigned %d, want %d", n, want)
		}
	}
	s.Requeue(Task{Block: 1, Group: 2})
	if n := s.Unassigned(); n != 1 {
		t.Fatalf("after Requeue: Unassigned %d, want 1", n)
	}
}

func TestSchedulerNextOnEmpty(t *testing.T) {
	s := New(4)
	if got, ok := s.Next(nothingCached); ok {
		t.Fatalf("empty scheduler handed out %+v", got)
	}
	s.Add(0)
	for range 4 {
		if _, ok := s.Next(caches(0, 1, 2, 3)); !ok {
			t.Fatal("Next failed before the block was exhausted")
		}
	}
	for _, cached := range []func(int) bool{nothingCached, caches(0, 1, 2, 3)} {
		if got, ok := s.Next(cached); ok || got != (Task{}) {
			t.Fatalf("exhausted scheduler: got %+v ok=%v, want zero Task and ok=false", got, ok)
		}
	}
}

func TestSchedulerRequeue(t *testing.T) {
	t.Run("goes to the head", func(t *testing.T) {
		s := newWithBlocks(2, 2)
		if got, _ := s.Next(nothingCached); got != (Task{0, 0}) {
			t.Fatalf("first task %+v", got)
		}
		s.Requeue(Task{Block: 5, Group: 1}) // a failed task of an earlier block
		if got, _ := s.Next(nothingCached); got != (Task{5, 1}) {
			t.Fatalf("after Requeue: got %+v, want the requeued task {5 1}", got)
		}
		if got, _ := s.Next(nothingCached); got != (Task{0, 1}) {
			t.Fatalf("then: got %+v, want {0 1}", got)
		}
	})
	t.Run("cached fit is still found first in the requeued head", func(t *testing.T) {
		s := newWithBlocks(3, 1)
		s.Requeue(Task{Block: 9, Group: 2})
		if got, _ := s.Next(caches(2)); got != (Task{9, 2}) {
			t.Fatalf("got %+v, want {9 2}", got)
		}
		if got, _ := s.Next(caches(2)); got != (Task{0, 2}) {
			t.Fatalf("got %+v, want {0 2}", got)
		}
	})
	t.Run("cached task in a later block beats an uncached requeued head", func(t *testing.T) {
		s := newWithBlocks(3, 1)
		s.Requeue(Task{Block: 9, Group: 0})
		if got, _ := s.Next(caches(1)); got != (Task{0, 1}) {
			t.Fatalf("got %+v, want {0 1}", got)
		}
		if got, _ := s.Next(nothingCached); got != (Task{9, 0}) {
			t.Fatalf("got %+v, want the requeued {9 0}", got)
		}
	})
	t.Run("requeue on an exhausted scheduler", func(t *testing.T) {
		s := New(2)
		s.Requeue(Task{Block: 3, Group: 1})
		if got, ok := s.Next(nothingCached); !ok || got != (Task{3, 1}) {
			t.Fatalf("got %+v ok=%v", got, ok)
		}
		if _, ok := s.Next(nothingCached); ok {
			t.Fatal("scheduler not empty after the requeued task")
		}
	})
}

// assigner hands a free worker its next task given what it caches.
type assigner func(worker int, cached map[int]bool) (Task, bool)

// simulate runs workers that each take a random (seeded) time per task and
// cache every group they have run; the worker free earliest asks next (ties:
// the lowest id). It returns every assignment and the groups each worker
// fetched.
func simulate(t *testing.T, workers int, seed uint64, next assigner) (assigned []Task, fetched []map[int]bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 99))
	free := make([]float64, workers)
	fetched = make([]map[int]bool, workers)
	for w := range fetched {
		fetched[w] = map[int]bool{}
	}
	for {
		w := 0
		for i := range free {
			if free[i] < free[w] {
				w = i
			}
		}
		task, ok := next(w, fetched[w])
		if !ok {
			return assigned, fetched
		}
		assigned = append(assigned, task)
		fetched[w][task.Group] = true
		free[w] += 0.5 + r.Float64()
	}
}

func totalFetches(fetched []map[int]bool) int {
	n := 0
	for _, f := range fetched {
		n += len(f)
	}
	return n
}

func TestSchedulerSimulationCacheAffinity(t *testing.T) {
	const workers, groups, blocks = 4, 8, 20
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			s := newWithBlocks(groups, blocks)
			assigned, fetched := simulate(t, workers, seed, func(_ int, cached map[int]bool) (Task, bool) {
				return s.Next(func(g int) bool { return cached[g] })
			})
			if s.Unassigned() != 0 {
				t.Fatalf("Unassigned %d after the run", s.Unassigned())
			}
			// Every (block, group) exactly once.
			seen := map[Task]int{}
			for _, task := range assigned {
				seen[task]++
			}
			if len(assigned) != groups*blocks || len(seen) != groups*blocks {
				t.Fatalf("%d assignments of %d distinct tasks, want %d", len(assigned), len(seen), groups*blocks)
			}
			for b := range blocks {
				for g := range groups {
					if n := seen[Task{b, g}]; n != 1 {
						t.Errorf("task {%d %d} assigned %d times", b, g, n)
					}
				}
			}

			// Baseline: the same workers take the tasks in FIFO order,
			// ignoring their caches (a round-robin deal whenever a worker
			// frees up).
			var fifo []Task
			for b := range blocks {
				for g := range groups {
					fifo = append(fifo, Task{b, g})
				}
			}
			_, naive := simulate(t, workers, seed, func(int, map[int]bool) (Task, bool) {
				if len(fifo) == 0 {
					return Task{}, false
				}
				task := fifo[0]
				fifo = fifo[1:]
				return task, true
			})

			aware, base := totalFetches(fetched), totalFetches(naive)
			t.Logf("shard group fetches: cache-aware %d, naive %d (minimum %d)", aware, base, groups)
			if aware >= base {
				t.Errorf("cache-aware scheduling fetched %d groups, naive baseline %d: want fewer", aware, base)
			}
			// Each group must be fetched at least once; with affinity a
			// worker should need few groups (about groups/workers).
			for w, f := range fetched {
				if len(f) > groups/workers+2 {
					t.Errorf("worker %d fetched %d groups %v, want at most %d", w, len(f), f, groups/workers+2)
				}
			}
		})
	}
}

// A strict round-robin deal of the FIFO list (task i to worker i mod 4) is
// the other obvious baseline. When the group count is a multiple of the
// worker count it happens to keep perfect affinity (worker w always gets
// groups w, w+4, ...; 8 fetches for 8 groups, at the price of ignoring load),
// so it is compared here on the other group counts.
func TestSchedulerSimulationVsRoundRobin(t *testing.T) {
	const workers, blocks = 4, 20
	for _, groups := range []int{5, 6, 7, 9, 10} {
		t.Run(fmt.Sprint("groups=", groups), func(t *testing.T) {
			rr := make([]map[int]bool, workers)
			for w := range rr {
				rr[w] = map[int]bool{}
			}
			for i := range groups * blocks {
				rr[i%workers][i%groups] = true
			}
			s := newWithBlocks(groups, blocks)
			_, fetched := simulate(t, workers, 1, func(_ int, cached map[int]bool) (Task, bool) {
				return s.Next(func(g int) bool { return cached[g] })
			})
			aware, base := totalFetches(fetched), totalFetches(rr)
			t.Logf("groups %d: cache-aware %d fetches, round-robin %d", groups, aware, base)
			if aware >= base {
				t.Errorf("cache-aware %d fetches, round-robin %d: want fewer", aware, base)
			}
		})
	}
}

// A block added with its own groups yields exactly those tasks, in FIFO
// order after the blocks before it, and a worker caching one of them gets
// it first.
func TestSchedulerAddGroups(t *testing.T) {
	s := New(3) // group 0: the whole database; 1 and 2: its halves
	s.AddGroups(0, []int{0})
	s.AddGroups(1, []int{1, 2})
	if n := s.Unassigned(); n != 3 {
		t.Fatalf("Unassigned %d, want 3", n)
	}
	want := []struct {
		cached []int
		task   Task
	}{
		{cached: nil, task: Task{Block: 0, Group: 0}},
		{cached: []int{2}, task: Task{Block: 1, Group: 2}},
		{cached: []int{0}, task: Task{Block: 1, Group: 1}},
	}
	for i, w := range want {
		got, ok := s.Next(caches(w.cached...))
		if !ok || got != w.task {
			t.Fatalf("request %d: got %+v (ok %v), want %+v", i, got, ok, w.task)
		}
	}
	if _, ok := s.Next(nothingCached); ok {
		t.Fatal("a task left after every group of both blocks was taken")
	}
}
