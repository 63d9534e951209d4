package burst

import (
	"fmt"
	"strings"
	"time"
)

// explain says why n partitions, with the times that decided it:
// "adding 3 partitions (2 → 5): site hpc-a alone finishes at 14:20,
// deadline 13:00; with 5 about 12:50".
func explain(in Input, e estimate, sites siteRates, n, cur int, left time.Duration) string {
	deadline := "deadline " + clock(in.Deadline, in.Now)
	with := withN(e, n, in)
	switch {
	case left <= 0:
		return change(n, cur) + "the " + deadline + " has passed; " + with
	case n > cur:
		return change(n, cur) + alone(e, sites, in.Now) + ", " + deadline + "; " + with
	case n < cur:
		return change(n, cur) + "the sites finish at " + at(e.finish(n), in.Now) + " without them, " + deadline
	}
	return change(n, cur) + with + ", " + deadline
}

// change is the decision's head: "adding 3 partitions (2 → 5): ".
func change(n, cur int) string {
	switch {
	case n > cur:
		return fmt.Sprintf("adding %s (%d → %d): ", plural(n-cur), cur, n)
	case n < cur:
		return fmt.Sprintf("removing %s (%d → %d): ", plural(cur-n), cur, n)
	}
	return "keeping " + plural(n) + ": "
}

// withN is when the work ends with n partitions, and whether that is late.
func withN(e estimate, n int, in Input) string {
	f := e.finish(n)
	s := fmt.Sprintf("with %d finishing at %s", n, at(f, in.Now))
	if f.IsZero() || f.After(in.Deadline) {
		if n == in.Max {
			s += fmt.Sprintf(", late even at the maximum (%d)", in.Max)
		} else {
			s += ", late"
		}
	}
	return s
}

// alone is when the other sites finish without cloud partitions.
func alone(e estimate, sites siteRates, now time.Time) string {
	if len(sites.names) == 0 {
		return "no other site is working"
	}
	f := estimate{now: e.now, remaining: e.remaining, sites: e.sites}.finish(0)
	if len(sites.names) == 1 {
		return "site " + sites.names[0] + " alone finishes at " + at(f, now)
	}
	return "sites " + strings.Join(sites.names, ", ") + " alone finish at " + at(f, now)
}

func plural(n int) string {
	if n == 1 {
		return "1 partition"
	}
	return fmt.Sprintf("%d partitions", n)
}

// at is a completion time, "never" for the zero time.
func at(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return clock(t, now)
}

// clock is a time in UTC: the hour and minute on now's day, with the
// date on another.
func clock(t, now time.Time) string {
	t = t.UTC()
	if t.Format(time.DateOnly) == now.UTC().Format(time.DateOnly) {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}
