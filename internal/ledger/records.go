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
	Token      string    `json:"token"`
	AcquiredAt time.Time `json:"acquiredAt"`
	RenewedAt  time.Time `json:"renewedAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
	Released   bool      `json:"released,omitempty"`
}

// FailureReason is why an attempt failed, as the engine saw it.
type FailureReason struct {
	Message    string `json:"message"`
	ExitCode   int    `json:"exitCode,omitempty"`
	Signal     string `json:"signal,omitempty"`
	StderrTail string `json:"stderrTail,omitempty"`
	// Config: BLAST+ refused the search's options, which no retry fixes.
	Config bool `json:"config,omitempty"`
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

// attempt is one acquisition of a chunk.
type attempt struct {
	Number    int            `json:"number"`
	Holder    string         `json:"holder"`
	Token     string         `json:"token"`
	StartedAt time.Time      `json:"startedAt"`
	Failure   *FailureReason `json:"failure,omitempty"`
}

// attemptsRecord is attempts.json; its length is the attempt count.
type attemptsRecord struct {
	Attempts []attempt `json:"attempts"`
}

// lastFailure is the latest recorded failure, or a synthetic one when
// the attempts ended without reporting (the holder died).
func (a attemptsRecord) lastFailure() FailureReason {
	for i := len(a.Attempts) - 1; i >= 0; i-- {
		if f := a.Attempts[i].Failure; f != nil {
			return *f
		}
	}
	return FailureReason{Message: fmt.Sprintf("%d attempts ended without a result or a reported failure", len(a.Attempts))}
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
