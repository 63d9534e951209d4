package controllers

import (
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/ledger"
)

func TestProgress(t *testing.T) {
	for _, c := range []struct {
		done, failed, total int
		want                string
	}{
		{0, 0, 0, ""},
		{0, 0, 71, "0%"},
		{40, 0, 100, "40%"},
		{100, 0, 100, "100%"},
		{0, 71, 71, "0% (71 failed)"}, // every query failed: never 100%
		{69, 2, 71, "97% (2 failed)"},
	} {
		if got := progress(c.done, c.failed, c.total); got != c.want {
			t.Errorf("progress(%d, %d, %d) = %q, want %q", c.done, c.failed, c.total, got, c.want)
		}
	}
}

func TestEndgamePoll(t *testing.T) {
	for _, c := range []struct {
		name string
		st   ledger.Status
		poll time.Duration
		want time.Duration
	}{
		{"chunks still to lease", ledger.Status{Pending: 3, Leased: 2}, 15 * time.Second, 0},
		{"last chunks leased", ledger.Status{Pending: 0, Leased: 2}, 15 * time.Second, 3 * time.Second},
		{"last chunks leased, dev stack", ledger.Status{Pending: 0, Leased: 1}, 3 * time.Second, time.Second},
		{"nothing leased (waiting for a partition)", ledger.Status{Pending: 0, Leased: 0, Committed: 4}, 15 * time.Second, 0},
		{"complete", ledger.Status{Complete: true}, 15 * time.Second, 0},
	} {
		if got := endgamePoll(&c.st, c.poll); got != c.want {
			t.Errorf("%s: endgamePoll = %v, want %v", c.name, got, c.want)
		}
	}
}
