package simulate

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// Spend is how a simulated task spends its compute time.
//
// Sleep waits without using a CPU, so ranks overlap their compute times
// freely: 64 ranks run on 2 cores and the wall time is what 64 cores would
// take. Use it to measure scheduling and output strategies at scale, as
// S3aSim did.
//
// Busy spins on a CPU for the whole time, so ranks compete for cores as
// real BLAST processes do: with more ranks than cores every task stretches.
// Use it only with no more ranks than cores, or to model that contention.
type Spend int

const (
	Sleep Spend = iota // wait on a timer: no CPU used
	Busy               // spin: one CPU used for the whole time
)

// ParseSpend reads "sleep" or "busy".
func ParseSpend(s string) (Spend, error) {
	switch s {
	case "sleep":
		return Sleep, nil
	case "busy":
		return Busy, nil
	}
	return 0, fmt.Errorf("simulate: spend %q: want sleep or busy", s)
}

func (s Spend) String() string {
	switch s {
	case Sleep:
		return "sleep"
	case Busy:
		return "busy"
	}
	return fmt.Sprintf("Spend(%d)", int(s))
}

// Wait spends d, or returns ctx's error as soon as ctx is done.
func (s Spend) Wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if s == Busy {
		return spin(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// spin burns CPU until d has passed, checking ctx between short bursts.
func spin(ctx context.Context, d time.Duration) error {
	done := ctx.Done()
	deadline := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		for range 1000 {
			x = mix(x) // work the compiler cannot drop: x is kept below
		}
	}
	sink.Store(x)
	return nil
}

// sink keeps spin's arithmetic observable.
var sink atomic.Uint64
