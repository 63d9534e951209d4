package burst

import (
	"strings"
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	deadline := now.Add(time.Hour) // 13:00: 3.6M letters need 1000 letters/s
	hpc := func(rate float64) []Site {
		return []Site{{Name: "hpc-a", LettersPerSecond: rate, Running: 4, LastCommitted: now.Add(-time.Hour), Window: time.Hour}}
	}
	base := func(sites []Site, current int) Input {
		return Input{Now: now, Deadline: deadline, Remaining: 3_600_000, Sites: sites, Current: current, Min: 1, Max: 8}
	}
	for _, tc := range []struct {
		name   string
		in     Input
		want   int
		reason string
		late   bool
		msg    string // a part of the message
		wait   time.Duration
	}{
		{
			name: "site too slow: add until the prior rate makes it", in: base(hpc(200), 1), want: 4, reason: ReasonAdding,
			msg: "adding 3 partitions (1 → 4): site hpc-a alone finishes at 17:00, deadline 13:00; with 4 finishing at 13:00",
		},
		{
			name: "far too slow: add up to max, still late", in: base(hpc(50), 2), want: 8, reason: ReasonAdding, late: true,
			msg: "adding 6 partitions (2 → 8): site hpc-a alone finishes at Nov 27 08:00, deadline 13:00; with 8 finishing at 14:13, late even at the maximum (8)",
		},
		{
			name: "at max and late: will miss", in: base(hpc(50), 8), want: 8, reason: ReasonWillMiss, late: true,
			msg: "keeping 8 partitions: with 8 finishing at 14:13, late even at the maximum (8), deadline 13:00",
		},
		{
			name: "site caught up: remove to min", in: base(hpc(2000), 4), want: 1, reason: ReasonRemoving,
			msg: "removing 3 partitions (4 → 1): the sites finish at 12:15 without them, deadline 13:00",
		},
		{
			name: "enough, not with margin to spare: keep",
			in: func() Input {
				in := base(hpc(800), 3)
				in.Cloud, in.CloudPartitions = Site{Name: "cloud", LettersPerSecond: 150, ChunkLettersPerSecond: 100, Running: 2, Window: time.Hour}, 3 // 100 each
				return in
			}(),
			want: 3, reason: ReasonOnSchedule, msg: "keeping 3 partitions: with 3 finishing at 12:54, deadline 13:00",
		},
		{
			name: "measured cloud rate, not the prior",
			in: func() Input {
				in := base(hpc(600), 2)
				in.Cloud, in.CloudPartitions = Site{Name: "cloud", LettersPerSecond: 100, ChunkLettersPerSecond: 25, Running: 4, Window: time.Hour}, 2 // 2 chunks of 25
				return in
			}(),
			want: 8, reason: ReasonAdding, msg: "with 8 finishing at 13:00",
		},
		{
			name: "a site that stopped counts for nothing",
			in: func() Input {
				in := base([]Site{{Name: "hpc-a", LettersPerSecond: 5000, LastCommitted: now.Add(-10 * time.Minute), Window: time.Hour},
					{Name: "hpc-b", LettersPerSecond: 200, LastCommitted: now.Add(-time.Minute), Window: time.Hour}}, 1)
				return in
			}(),
			want: 4, reason: ReasonAdding, msg: "site hpc-b alone finishes at 17:00",
		},
		{
			name: "the prior is the fastest site's rate per chunk",
			in: func() Input {
				in := base([]Site{{Name: "hpc-a", LettersPerSecond: 500, ChunkLettersPerSecond: 100, Running: 5, LastCommitted: now, Window: time.Hour}}, 1)
				return in
			}(),
			want: 5, reason: ReasonAdding, msg: "adding 4 partitions (1 → 5): site hpc-a alone finishes at 14:00, deadline 13:00; with 5 finishing at 13:00",
		},
		{
			name: "cloud rate measured with no partition running: one chunk each",
			in: func() Input {
				in := base(hpc(600), 1)
				in.Cloud = Site{Name: "cloud", LettersPerSecond: 30, ChunkLettersPerSecond: 100, Window: time.Hour}
				return in
			}(),
			want: 4, reason: ReasonAdding, msg: "with 4 finishing at 13:00",
		},
		{
			name: "nothing measured: start at min", in: base(nil, 0), want: 1, reason: ReasonMeasuring,
			msg: "keeping 1 partition: no working site's rate is measured yet",
		},
		{
			name: "rate over a too short window is not used", in: base([]Site{{Name: "hpc-a", LettersPerSecond: 10, Window: time.Minute}}, 2),
			want: 2, reason: ReasonMeasuring,
		},
		{
			name: "deadline passed: max",
			in: func() Input {
				in := base(hpc(5000), 2)
				in.Deadline = now.Add(-time.Minute)
				return in
			}(),
			want: 8, reason: ReasonAdding, late: true, msg: "the deadline 11:59 has passed",
		},
		{
			name: "nothing remaining: min",
			in: func() Input {
				in := base(hpc(200), 5)
				in.Remaining = 0
				return in
			}(),
			want: 1, reason: ReasonRemoving, msg: "removing 4 partitions (5 → 1): nothing left to search",
		},
		{
			name: "changed a minute ago: held",
			in: func() Input {
				in := base(hpc(2000), 4)
				in.LastChange = now.Add(-time.Minute)
				return in
			}(),
			want: 4, reason: ReasonOnSchedule, wait: 4 * time.Minute,
			msg: "holding 4 partitions until 12:04 (changed at 11:59), then removing 3 partitions (4 → 1)",
		},
		{
			name: "changed long ago: not held",
			in: func() Input {
				in := base(hpc(2000), 4)
				in.LastChange = now.Add(-time.Hour)
				return in
			}(),
			want: 1, reason: ReasonRemoving,
		},
		{
			name: "max lowered below the count: follows at once",
			in: func() Input {
				in := base(hpc(200), 6)
				in.Max, in.LastChange = 3, now.Add(-time.Minute)
				return in
			}(),
			want: 3, reason: ReasonWillMiss, late: true, msg: "keeping 3 partitions",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.in, DefaultPolicy)
			if d.Partitions != tc.want || d.Reason != tc.reason || d.Late != tc.late || d.Wait != tc.wait {
				t.Errorf("got %d %s late=%v wait=%v (%q), want %d %s late=%v wait=%v", d.Partitions, d.Reason, d.Late, d.Wait, d.Message, tc.want, tc.reason, tc.late, tc.wait)
			}
			if !strings.Contains(d.Message, tc.msg) {
				t.Errorf("message %q, want it to contain %q", d.Message, tc.msg)
			}
			if tc.reason != ReasonMeasuring && d.Finish.IsZero() {
				t.Error("no estimated completion")
			}
		})
	}
}

// TestDecideSequence: a site measured too slow makes the decision add
// partitions; once it catches up they are removed again, each change
// waiting MinInterval after the last.
func TestDecideSequence(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	in := Input{Now: now, Deadline: now.Add(time.Hour), Remaining: 3_600_000, Min: 1, Max: 5, Current: 1,
		Sites: []Site{{Name: "hpc-a", LettersPerSecond: 400, Running: 2, Window: time.Hour}}}
	d := Decide(in, DefaultPolicy)
	if d.Partitions != 2 || d.Reason != ReasonAdding {
		t.Fatalf("slow site: %+v, want 2 AddingPartitions", d)
	}
	in.Current, in.LastChange = d.Partitions, in.Now
	in.Now = in.Now.Add(6 * time.Minute)
	in.Remaining = 1_000_000
	in.Sites[0].LettersPerSecond = 3000
	d = Decide(in, DefaultPolicy)
	if d.Partitions != 1 || d.Reason != ReasonRemoving {
		t.Fatalf("caught up: %+v, want 1 RemovingPartitions", d)
	}
}

func TestPolicyValidate(t *testing.T) {
	if err := DefaultPolicy.Validate(); err != nil {
		t.Errorf("default policy refused: %v", err)
	}
	for _, p := range []Policy{{Margin: 1}, {Margin: -0.1}, {MinInterval: -time.Second}, {MinWindow: -time.Second}} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
