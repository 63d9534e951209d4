package shard

import (
	"fmt"
	"io"
	"sync"
)

// progress writes human progress lines; shards report concurrently, so
// lines are serialised. A nil writer keeps quiet.
type progress struct {
	mu sync.Mutex
	w  io.Writer
	// onShard, when set, hears each per-shard step instead of its line.
	onShard func(step string, done, total int)
	steps   int
}

// shardStep is one shard's step (built, uploaded) of total: a line, or
// Options.OnShard's call.
func (p *progress) shardStep(total int, format string, args ...any) {
	if p.onShard == nil {
		p.printf(format, args...)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps++
	p.onShard(fmt.Sprintf(format, args...), p.steps, total)
}

func (p *progress) printf(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}

// byteSize formats n bytes for humans (1024-based).
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
