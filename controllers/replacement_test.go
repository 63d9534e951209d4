package controllers

import (
	"strings"
	"testing"
	"time"
)

func TestReplacementDecide(t *testing.T) {
	pol := retries(10, 300, 3)
	for _, c := range []struct {
		name   string
		p      *part // nil: no partition at the index
		used   int
		ledger bool
		want   slotDecision
	}{
		{"none yet", nil, 0, true, slotDecision{action: slotCreate}},
		{"running", newPart(0, PartitionRunning), 0, true, slotDecision{action: slotKeep}},
		{"queued for admission", newPart(2, PartitionQueued), 3, true, slotDecision{action: slotKeep}},
		// Exit 0 usually means the campaign is done: wait for the ledger.
		{"succeeded, ledger unread", newPart(0, PartitionSucceeded).endedAgo(time.Hour, "Completed"), 0, false, slotDecision{action: slotKeep}},
		{"succeeded with chunks left", newPart(0, PartitionSucceeded).endedAgo(time.Hour, "Completed"), 0, true, slotDecision{action: slotReplace, restart: 1}},
		{"failed, backoff over", newPart(0, PartitionFailed).endedAgo(11*time.Second, "BackoffLimitExceeded"), 0, true, slotDecision{action: slotReplace, restart: 1}},
		{"failed, in backoff", newPart(0, PartitionFailed).endedAgo(4*time.Second, "BackoffLimitExceeded"), 0, true, slotDecision{action: slotWait, wait: 6 * time.Second}},
		// The third restart waits 10 s doubled twice.
		{"failed again, longer backoff", newPart(2, PartitionFailed).endedAgo(30*time.Second, "Error"), 2, true, slotDecision{action: slotWait, wait: 10 * time.Second}},
		{"budget used up", newPart(3, PartitionFailed).endedAgo(time.Hour, "Error"), 3, true, slotDecision{action: slotExhausted}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := replacement{policy: pol, used: c.used, ledger: c.ledger, now: t0}
			var got slotDecision
			if c.p == nil {
				got = r.decide(partition{}, false)
			} else {
				got = r.decide(c.p.build(), true)
			}
			if got.action != c.want.action || got.restart != c.want.restart || got.wait != c.want.wait {
				t.Errorf("decide = %+v, want %+v", got, c.want)
			}
			if (got.action == slotReplace || got.action == slotWait || got.action == slotExhausted) &&
				(!strings.Contains(got.failure, c.p.build().obj.GetName()) || !strings.Contains(got.failure, c.p.p.state.Reason)) {
				t.Errorf("failure %q does not name the partition and its reason", got.failure)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	pol := retries(10, 60, 9)
	var got []time.Duration
	for r := 1; r <= 5; r++ {
		got = append(got, backoff(pol, r))
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 60 * time.Second, 60 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backoff for restarts 1..5 = %v, want %v", got, want)
		}
	}
}
