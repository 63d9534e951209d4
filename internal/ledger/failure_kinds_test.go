package ledger

import "testing"

func TestFailureKinds(t *testing.T) {
	var k FailureKinds
	k.add(attemptsRecord{Attempts: []attempt{
		{Number: 1, Failure: &FailureReason{Message: "killed", Signal: "SIGKILL"}},
		{Number: 2, Failure: &FailureReason{Message: "blastn failed", ExitCode: 3}},
		{Number: 3}, // its holder vanished
		{Number: 4, Failure: &FailureReason{Message: "writing output: 503"}},
		{Number: 5}, // running now
	}})
	if want := (FailureKinds{ExitCode: 1, Signal: 1, Error: 1, Abandoned: 1}); k != want || k.Total() != 4 {
		t.Errorf("kinds %+v (total %d), want %+v", k, k.Total(), want)
	}
}
