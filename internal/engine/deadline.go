package engine

import (
	"fmt"
	"sync"
	"time"
)

// TaskLimits bound one BLAST run of a worker, so that a hung or runaway
// BLAST fails its task (an ordinary failure: retried, then split down to
// the query at fault) instead of renewing its chunk's lease forever or
// filling the worker's memory.
type TaskLimits struct {
	// Factor: a task may run Factor times as long as this worker's
	// slowest measured pace (seconds per byte of query block, on any
	// shard group) says a block of its size takes...
	Factor float64
	// ...but never less than Min, and at most Max; Max also bounds every
	// task before one has been measured.
	Min, Max time.Duration
	// MaxOutput bounds the bytes BLAST may print for one task (0: none).
	MaxOutput int64
}

// DefaultTaskLimits are generous: a slow task is normal, a hung one is not.
var DefaultTaskLimits = TaskLimits{Factor: 10, Min: 10 * time.Minute, Max: 24 * time.Hour, MaxOutput: 2 << 30}

// taskLimits are the configured limits, or the defaults.
func (c *Config) taskLimits() TaskLimits {
	if c.TaskLimits == (TaskLimits{}) {
		return DefaultTaskLimits
	}
	return c.TaskLimits
}

func (l TaskLimits) validate() error {
	switch {
	case l.Factor < 1:
		return fmt.Errorf("--task-timeout-factor %g: must be at least 1", l.Factor)
	case l.Min <= 0 || l.Max < l.Min:
		return fmt.Errorf("--task-timeout-min %v and --task-timeout-max %v: want 0 < min <= max", l.Min, l.Max)
	case l.MaxOutput < 0:
		return fmt.Errorf("--max-task-output must be >= 0")
	}
	return nil
}

// pace is a worker's slowest measured seconds per query-block byte.
type pace struct {
	mu      sync.Mutex
	slowest float64 // 0: nothing measured yet
}

// observe records a task that searched size bytes of queries in took.
func (p *pace) observe(size int, took time.Duration) {
	if size <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.slowest = max(p.slowest, took.Seconds()/float64(size))
}

// timeout is the deadline of a task of size bytes of queries.
func (p *pace) timeout(l TaskLimits, size int) time.Duration {
	p.mu.Lock()
	slowest := p.slowest
	p.mu.Unlock()
	if slowest == 0 {
		return l.Max
	}
	d := time.Duration(l.Factor * slowest * float64(size) * float64(time.Second))
	return min(max(d, l.Min), l.Max)
}
