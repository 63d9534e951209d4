package benchrun

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Main runs a benchmark command named name that started at start: replay,
// when set, re-renders saved results (no engine runs); otherwise run runs
// the benchmark, interruptible by SIGINT or SIGTERM, and the total time is
// printed. An error exits 1, named for the command.
func Main(name string, start time.Time, replay func() error, run func(context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	if replay != nil {
		err = replay()
	} else {
		err = run(ctx)
	}
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: error: %v\n", name, err)
		os.Exit(1)
	}
	if replay == nil {
		fmt.Printf("\nTotal benchmark time: %.0f s (load average at the end: %s)\n", time.Since(start).Seconds(), LoadAverage())
	}
}

// Ranks parses a comma-separated list of rank counts (each >= 2: a master
// and a worker).
func Ranks(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("rank count %q: want an integer >= 2", f)
		}
		out = append(out, n)
	}
	return out, nil
}
