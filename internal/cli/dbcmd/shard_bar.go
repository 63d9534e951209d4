package dbcmd

import (
	"io"
	"strings"
	"sync"

	"github.com/blastfleet/blastfleet/internal/cli"
)

// shardBar is db shard's one bar on a terminal: the shards' steps
// (built, uploaded) fill it, and the other progress lines print above it.
// Off a terminal the steps stay lines, as a log wants them.
type shardBar struct {
	mu  sync.Mutex
	w   io.Writer
	bar *cli.Bar
}

// step is shard.Options.OnShard.
func (s *shardBar) step(_ string, _, total int) {
	s.mu.Lock()
	if s.bar == nil {
		s.bar = cli.NewBar(s.w, "sharding (steps: each shard built, uploaded)", int64(total), cli.Items)
	}
	bar := s.bar
	s.mu.Unlock()
	bar.Add(1)
}

// Write takes shard's progress lines, one a call.
func (s *shardBar) Write(p []byte) (int, error) {
	s.mu.Lock()
	bar := s.bar
	s.mu.Unlock()
	if bar == nil {
		return s.w.Write(p)
	}
	bar.Println(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func (s *shardBar) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bar != nil {
		s.bar.Finish()
	}
}
