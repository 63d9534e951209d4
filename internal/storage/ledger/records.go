package ledger

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// leaseRecord is lease.json. Token makes every write's bytes unique, so an
// S3 ETag (the content's MD5) never repeats and a write whose response was
// lost can be recognised as ours by reading it back.
type leaseRecord struct {
	Holder     string    `json:"holder"`
	Site       string    `json:"site,omitempty"`
	Token      string    `json:"token"`
	AcquiredAt time.Time `json:"acquiredAt"`
	RenewedAt  time.Time `json:"renewedAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
	Released   bool      `json:"released,omitempty"`
	// Stop, on a released lease, says its attempt was stopped: a stop is
	// written here first, in the one write that frees the chunk (a rank
	// told to stop may be killed a second later), and folded into
	// attempts.json after, by the stopping partition or the next taker.
	Stop *Stop `json:"stop,omitempty"`
}

// FailureReason is why an attempt failed, as the engine saw it.
type FailureReason struct {
	Message    string `json:"message"`
	ExitCode   int    `json:"exitCode,omitempty"`
	Signal     string `json:"signal,omitempty"`
	StderrTail string `json:"stderrTail,omitempty"`
	// Config: BLAST+ refused the search's options, which no retry fixes.
	Config bool `json:"config,omitempty"`
	// Database: the campaign's database is not the one it was planned
	// against (rebuilt in place, edited or deleted), which no retry fixes.
	Database bool `json:"database,omitempty"`
	// QueryID names the query of a one-query chunk, so the query given up
	// on is named, not only numbered.
	QueryID string `json:"queryId,omitempty"`
}

func (f FailureReason) String() string {
	s := f.Message
	if f.ExitCode != 0 {
		s += fmt.Sprintf(" (exit code %d)", f.ExitCode)
	}
	if f.Signal != "" {
		s += " (signal " + f.Signal + ")"
	}
	return s
}

// attempt is one acquisition of a chunk. It ends with a result (the
// chunk's commit), a Failure, a Stop, or without a word (its holder died
// or lost touch and the lease expired: abandoned).
type attempt struct {
	Number    int            `json:"number"`
	Holder    string         `json:"holder"`
	Site      string         `json:"site,omitempty"`
	Token     string         `json:"token"`
	StartedAt time.Time      `json:"startedAt"`
	Failure   *FailureReason `json:"failure,omitempty"`
	Stop      *Stop          `json:"stop,omitempty"`
}

// Stop is why an attempt was given up healthy: its partition was told to
// stop (suspend, scale-down, preemption, wind-down, node drain). A stop
// is never a failure and uses up no attempt.
type Stop struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// attemptsRecord is attempts.json: every attempt, in order.
type attemptsRecord struct {
	Attempts []attempt `json:"attempts"`
}

// withLeaseStop is the record with a stop only the chunk's lease holds
// folded into the attempt it ended: the latest, if it has no end yet and
// the lease is its own (same token), released with a stop.
func (a attemptsRecord) withLeaseStop(lease *leaseRecord) attemptsRecord {
	n := len(a.Attempts)
	if lease == nil || !lease.Released || lease.Stop == nil || n == 0 {
		return a
	}
	last := a.Attempts[n-1]
	if last.Token != lease.Token || last.Failure != nil || last.Stop != nil {
		return a
	}
	out := attemptsRecord{Attempts: append([]attempt(nil), a.Attempts...)}
	out.Attempts[n-1].Stop = lease.Stop
	return out
}

// ended counts the attempts by how they ended: failed (a failure on
// record), stopped, and abandoned (neither, and not the running one:
// with running, the latest attempt without an end is live).
func (a attemptsRecord) ended(running bool) (failed, stopped, abandoned int) {
	for i, at := range a.Attempts {
		switch {
		case at.Failure != nil:
			failed++
		case at.Stop != nil:
			stopped++
		case running && i == len(a.Attempts)-1:
		default:
			abandoned++
		}
	}
	return failed, stopped, abandoned
}

// spent is whether a chunk, none of whose attempts runs, may not be tried
// again: failures are held to maxAttempts, attempts that ended without a
// word to the larger maxAbandoned, and stops to the larger maxStopped,
// so a chunk whose own search gets its partition stopped every time (an
// eviction for its disk use, a time limit it cannot fit in) is split
// down to the query that does it rather than costing every restart.
func (a attemptsRecord) spent(pol Policy) bool {
	failed, stopped, abandoned := a.ended(false)
	return failed >= pol.MaxAttempts || abandoned >= pol.MaxAbandoned || stopped >= pol.MaxStopped
}

// lastFailure is the latest recorded failure, or a synthetic one when
// the attempts ended without reporting (the holders died) or were all
// stopped.
func (a attemptsRecord) lastFailure(pol Policy) FailureReason {
	for i := len(a.Attempts) - 1; i >= 0; i-- {
		if f := a.Attempts[i].Failure; f != nil {
			return *f
		}
	}
	_, stopped, abandoned := a.ended(false)
	if stopped >= pol.MaxStopped {
		last := ""
		if n := len(a.Attempts); n > 0 && a.Attempts[n-1].Stop != nil {
			last = "; the last: " + a.Attempts[n-1].Stop.Reason
		}
		return FailureReason{Message: fmt.Sprintf("%d attempts were stopped before they finished (retryPolicy allows %d): its own search seems to cause the stop, such as an eviction for its disk use or a time limit shorter than it%s", stopped, pol.MaxStopped, last)}
	}
	return FailureReason{Message: fmt.Sprintf("%d attempts ended without a result or a reported failure (their partitions died or lost touch with the store)", abandoned)}
}

// Outcomes a chunk's commit.json can record. Exactly one of committed,
// split and failed is final; void means "undecided again".
const (
	outcomeCommitted = "committed"
	outcomeSplit     = "split"
	outcomeFailed    = "failed"
	outcomeVoid      = "void"
)

// outcomeRecord is commit.json, the chunk's single decision marker.
type outcomeRecord struct {
	Outcome string    `json:"outcome"`
	At      time.Time `json:"at"`
	Token   string    `json:"token"`
	// committed
	ResultKey string `json:"resultKey,omitempty"`
	Size      int64  `json:"size,omitempty"`
	SHA256    string `json:"sha256,omitempty"`
	Holder    string `json:"holder,omitempty"`
	Site      string `json:"site,omitempty"`
	Attempt   int    `json:"attempt,omitempty"`
	// split
	Children []Range `json:"children,omitempty"`
	// split and failed: the last failure
	Failure *FailureReason `json:"failure,omitempty"`
	// void: why, and what was voided
	Void       bool   `json:"void,omitempty"`
	Reason     string `json:"reason,omitempty"`
	VoidedKey  string `json:"voidedResultKey,omitempty"`
	VoidedHash string `json:"voidedSha256,omitempty"`
}

func newToken() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own plain structs are encoded
	}
	return append(b, '\n')
}
