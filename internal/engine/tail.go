package engine

import (
	"os"
	"time"
)

// At a search's end the last tasks are fewer than the workers: 7 protein
// batches (which blastp cannot cut by database and keep the bytes) on 2
// workers end 4 against 3, one core idle for a whole task. BLAST+ prints
// the same bytes for any -num_threads, so the last task may take the
// slots of workers on its host that have nothing left to do: idle ones,
// and busy ones about to finish their own last task (tailLendShare).

// tailLendShare: a busy worker lends its slots to the last task when its
// own task should end within this share of the last task's time (a
// worker busy for long would have its core shared three ways, and the
// last task would end later, not sooner).
const tailLendShare = 0.5

// running is a worker's task in flight: when it was sent and how long
// the master expects it to take (0: no estimate yet).
type running struct {
	started time.Time
	expect  float64
}

// hostName is the name a worker gives in its hello; workers with the same
// name share the machine's cores.
func hostName() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}

// tailThreads is the -num_threads for a task expected to take expect
// seconds sent to worker w: the worker's own slots, or at the search's
// tail (no task unassigned, nothing more to come) those and the slots of
// the workers on its host with nothing left.
func (m *master) tailThreads(w int, expect float64) int {
	own := m.cfg.Threads
	if m.cfg.Sim != nil || m.cfg.Schedule.static() || !m.drained || m.sched.Unassigned() > 0 || m.hosts[w] == "" || threadsSplitQueries(m.cfg) {
		return own
	}
	for _, u := range m.units {
		if !u.failed && !u.blk.done() {
			return own
		}
	}
	now := time.Now()
	threads := own
	for v := 1; v <= m.workers; v++ {
		if v == w || m.hosts[v] != m.hosts[w] {
			continue
		}
		r, busy := m.inFlight[v]
		if busy && (expect <= 0 || r.expect <= 0 || r.started.Add(seconds(r.expect)).Sub(now).Seconds() > tailLendShare*expect) {
			continue
		}
		threads += m.cfg.Threads
	}
	return threads
}

// busy records worker w's task in flight.
func (m *master) busy(w int, r running) {
	if m.inFlight == nil {
		m.inFlight = map[int]running{}
	}
	m.inFlight[w] = r
}

// expectSeconds is the master's estimate of a task's BLAST time from the
// tasks done so far (overhead.go's fit), 0 while it has none.
func (m *master) expectSeconds(block, group int) float64 {
	b := m.blocks[block]
	if group < 0 || group >= len(m.shares) {
		return 0
	}
	return m.overhead.estimate(float64(b.letters) * m.shares[group])
}

// threadsSplitQueries: under -mt_mode 1 BLAST+'s threads split the query
// file, which changes its batches; threads are then left as asked.
func threadsSplitQueries(cfg *Config) bool {
	for _, o := range cfg.Options {
		if o.Name == "mt_mode" && o.Value == "1" {
			return true
		}
	}
	return false
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
