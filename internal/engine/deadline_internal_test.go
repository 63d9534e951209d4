package engine

import (
	"testing"
	"time"
)

func TestTaskTimeout(t *testing.T) {
	l := TaskLimits{Factor: 10, Min: time.Minute, Max: time.Hour}
	var p pace
	if got := p.timeout(l, 1000); got != time.Hour {
		t.Errorf("before any measurement: %v, want the max", got)
	}
	p.observe(1000, 20*time.Second) // 0.02 s per byte
	p.observe(1000, 5*time.Second)  // faster: the slowest pace is kept
	for _, tc := range []struct {
		size int
		want time.Duration
	}{
		{1000, 200 * time.Second}, // 10 x 20 s
		{10, time.Minute},         // the floor
		{1 << 20, time.Hour},      // the ceiling
	} {
		if got := p.timeout(l, tc.size); got != tc.want {
			t.Errorf("timeout(%d bytes) = %v, want %v", tc.size, got, tc.want)
		}
	}
	for _, bad := range []TaskLimits{{Factor: 0.5, Min: 1, Max: 2}, {Factor: 2, Min: 0, Max: 2}, {Factor: 2, Min: 3, Max: 2}, {Factor: 2, Min: 1, Max: 2, MaxOutput: -1}} {
		if bad.validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
