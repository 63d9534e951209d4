package ledger

// FailureKinds counts attempts that ended without a result, by why: a
// bounded set, so it can be a metric label.
type FailureKinds struct {
	// ExitCode: BLAST (or the task) exited non-zero.
	ExitCode int `json:"exitCode"`
	// Signal: BLAST was killed (often the OOM killer).
	Signal int `json:"signal"`
	// Error: the engine reported another failure (fetching a shard,
	// writing or committing output; the store being out of reach is none:
	// the engine then ends the attempt abandoned).
	Error int `json:"error"`
	// Abandoned: a later attempt took over without any failure being
	// recorded: the holder died, lost touch with the store, or its lease
	// expired.
	Abandoned int `json:"abandoned"`
}

// Total is every failed attempt.
func (k FailureKinds) Total() int { return k.ExitCode + k.Signal + k.Error + k.Abandoned }

// add classifies a chunk's failed attempts. Stopped attempts are not
// failures; with live (the chunk is undecided or committed), the latest
// attempt without an end is the one running or committed.
func (k *FailureKinds) add(att attemptsRecord, live bool) {
	_, _, abandoned := att.ended(live)
	k.Abandoned += abandoned
	for _, a := range att.Attempts {
		switch f := a.Failure; {
		case f == nil:
		case f.Signal != "":
			k.Signal++
		case f.ExitCode != 0:
			k.ExitCode++
		default:
			k.Error++
		}
	}
}
