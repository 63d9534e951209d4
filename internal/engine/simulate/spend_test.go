package simulate

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestParseSpend(t *testing.T) {
	for _, s := range []Spend{Sleep, Busy} {
		got, err := ParseSpend(s.String())
		if err != nil || got != s {
			t.Fatalf("ParseSpend(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSpend("nap"); err == nil {
		t.Fatal(`"nap" parsed`)
	}
}

func TestSpendWaitsAndStopsOnCancel(t *testing.T) {
	for _, s := range []Spend{Sleep, Busy} {
		start := time.Now()
		if err := s.Wait(context.Background(), 30*time.Millisecond); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if d := time.Since(start); d < 30*time.Millisecond {
			t.Fatalf("%s: returned after %v, want at least 30ms", s, d)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start = time.Now()
		err := s.Wait(ctx, 10*time.Second)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
			t.Fatalf("%s: cancelled after 20ms, returned %v after %v", s, err, time.Since(start))
		}
	}
}
