package ledger

import "testing"

func TestFailureKinds(t *testing.T) {
	var k FailureKinds
	k.add(attemptsRecord{Attempts: []attempt{
		{Number: 1, Failure: &FailureReason{Message: "killed", Signal: "SIGKILL"}},
		{Number: 2, Failure: &FailureReason{Message: "blastn failed", ExitCode: 3}},
		{Number: 3}, // its holder vanished
		{Number: 4, Failure: &FailureReason{Message: "writing output: 503"}},
		{Number: 5, Stop: &Stop{Reason: "SIGTERM"}}, // not a failure
		{Number: 6}, // running now
	}}, true)
	if want := (FailureKinds{ExitCode: 1, Signal: 1, Error: 1, Abandoned: 1}); k != want || k.Total() != 4 {
		t.Errorf("kinds %+v (total %d), want %+v", k, k.Total(), want)
	}
	// Of a chunk given up on (split), the last attempt ran out too.
	k = FailureKinds{}
	k.add(attemptsRecord{Attempts: []attempt{{Number: 1}, {Number: 2, Stop: &Stop{Reason: "SIGTERM"}}, {Number: 3}}}, false)
	if want := (FailureKinds{Abandoned: 2}); k != want {
		t.Errorf("kinds of a split chunk %+v, want %+v", k, want)
	}
}
