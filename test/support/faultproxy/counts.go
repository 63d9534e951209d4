package faultproxy

import "fmt"

// Counts are what the proxy did, by kind of fault.
type Counts struct {
	Requests  int64 // requests received
	Forwarded int64 // requests the server saw
	// LostResponses are responses dropped after the server acted:
	// LostCut by cutting the connection, Lost5xx by a 500 instead.
	LostCut, Lost5xx int64
	// LostConditional are the lost responses of conditional writes
	// (If-None-Match or If-Match), whose retries find their own write.
	LostConditional int64
	Bursts          int64 // 5xx bursts started
	BurstAnswers    int64 // 503 answers given in bursts
	Delays          int64 // requests delayed
	Resets          int64 // connections reset
	// Slowed are the requests given AddedLatency or whose response was
	// paced by Bandwidth; ThrottledBytes the bytes paced.
	Slowed, ThrottledBytes int64
	// LostWrites are PUTs acknowledged but not stored, LostWriteKeys
	// their bucket/key in order.
	LostWrites    int64
	LostWriteKeys []string
	// StaleLists are LISTs answered with an earlier answer; StaleBehind
	// those whose answer differed from the latest kept (so the client
	// missed writes another answer had shown).
	StaleLists, StaleBehind int64
}

// Lost is every lost response.
func (c Counts) Lost() int64 { return c.LostCut + c.Lost5xx }

// Faults is every fault injected (a delayed request counts once, and so
// does a slowed one).
func (c Counts) Faults() int64 {
	return c.Lost() + c.BurstAnswers + c.Delays + c.Resets + c.Slowed + c.LostWrites + c.StaleLists
}

func (c Counts) String() string {
	return fmt.Sprintf("%d requests, %d forwarded; lost responses %d (%d cut, %d 500; %d of conditional writes), %d 5xx bursts (%d answers), %d delays, %d resets, %d slowed (%d bytes paced), %d acknowledged writes lost, %d stale listings (%d behind)",
		c.Requests, c.Forwarded, c.Lost(), c.LostCut, c.Lost5xx, c.LostConditional, c.Bursts, c.BurstAnswers, c.Delays, c.Resets, c.Slowed, c.ThrottledBytes,
		c.LostWrites, c.StaleLists, c.StaleBehind)
}
