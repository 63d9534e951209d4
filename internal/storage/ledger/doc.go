// Package ledger keeps a campaign's chunk state in object storage, the
// only state partitions on different machines and sites share: which
// chunks are leased, how often each was attempted, which are committed,
// split or failed. The engine's master leases and commits chunks, the
// operator and the CLI read the status and the results. It imports only
// objstore, so any of them can use it.
//
// # Object layout (under the campaign prefix)
//
//	plan.json                          the plan: queries, database, search, chunks, policy
//	chunks/<first>-<end>/lease.json    current lease {holder, token, acquiredAt, renewedAt, expiresAt, released}
//	chunks/<first>-<end>/attempts.json {attempts: [{number, holder, token, startedAt, failure}]}
//	chunks/<first>-<end>/commit.json   the chunk's decision: committed | split | failed | void
//	chunks/<first>-<end>/result-<holder>-<attempt>   one attempt's result
//	result                             the assembled output, in query order
//	assembled.json                     done marker for result: its size and SHA-256,
//	                                   checked against the composed object
//	assembling.json                    the assembly lease, a lease.json of its own
//
// A chunk is named by its query range [first, end), zero-padded to nine
// digits so List returns chunks in query order. Split children are ranges
// too, so they get their own directories, leases and attempts.
//
// # Leases
//
// Acquire takes the first undecided leaf chunk (query order) whose lease
// is absent, released, or expired. Expiry is judged by observation, on the
// taker's own clock: a lease version (its ETag) that stays unchanged for
// lease + skew after this handle first saw it is dead, since a live holder
// renews every renewSeconds and each renewal is a new version. No other
// machine's clock is trusted, so a partition whose clock runs hours ahead
// never takes a live lease; the price is that a handle seeing a dead lease
// for the first time waits lease + skew before taking it (expiresAt in
// the record is for people and status only). It creates lease.json with
// If-None-Match: * or replaces the old one with If-Match on its ETag, so
// one of any number of racing partitions wins. The winner then appends its
// attempt to attempts.json by CAS before any work starts, so a partition
// that dies mid-chunk has used an attempt. Renew and Release are CAS on the
// holder's last ETag: losing Renew means a takeover (ErrLeaseLost); Release
// writes a released record rather than deleting, so it cannot remove a
// lease someone else has taken over.
//
// # How attempts end
//
// An attempt ends with the chunk's commit, a failure (Fail: BLAST's exit
// code or signal, or an engine error), a stop (Stop: the partition was
// told to stop; the lease is released at once), or without a word (its
// holder died; the lease expired: abandoned). A chunk's attempts are spent
// when maxAttempts of them failed or maxAbandoned were abandoned; stops
// count toward nothing, so suspending, scaling down or preempting
// partitions never splits or fails a healthy chunk.
//
// # One decision per chunk
//
// commit.json is the single arbiter of a chunk's fate. A commit uploads
// the result to a key unique to its attempt, then creates commit.json
// {outcome: committed, resultKey, size, sha256, holder, attempt} with
// If-None-Match: *. When a chunk's attempts are spent and no lease
// is live, whoever notices writes commit.json as {outcome: split, children}
// (the two halves, computed deterministically) or, for a single query,
// {outcome: failed, failure}. Because commit, split and failure all create
// the same object conditionally, exactly one happens: a slow holder that
// finishes after its chunk was split gets ErrAlreadyCommitted and its
// result is deleted, so no query is ever committed twice. Commit does not
// need a valid lease, only an unchanged plan.
//
// # Verification and redo
//
// Readers check each commit: an unparseable commit.json, a result whose
// size (every status read) or SHA-256 (when results are read) differs from
// the marker, or a missing result voids the commit: commit.json is replaced,
// by If-Match on the bad version's ETag, with {outcome: void, reason,
// voidedResultKey}, and the bad result is deleted. A void chunk is
// undecided again; the next decision replaces the void record by If-Match
// on its ETag, so there are never two valid commits. Voids are reported in
// Status.Problems.
//
// # Assembly
//
// Once every chunk is decided, the result is assembled by one caller at
// a time: the holder of assembling.json, a lease taken, renewed, released
// and taken over exactly as a chunk's (If-None-Match: * or If-Match on
// its ETag, expiry judged by observation). Only the holder reads the
// parts through SHA-256, composes result, reads it back and writes
// assembled.json; partitions that finish together find the lease held and
// wait, polling assembled.json with jitter, so the parts are read once
// whatever the number of partitions, not once by each. An assembler that
// dies mid-way leaves no assembled.json; whoever takes its lease over
// when it expires redoes the assembly from the parts, overwriting any
// result it left.
//
// # Lost responses
//
// Every record carries a fresh random token, so every write's bytes are
// unique. When a conditional write reports a lost precondition, the ledger
// reads the object back: if it holds exactly our bytes, an earlier try of
// the same request won and the write counts as ours.
//
// # Lost writes
//
// A store may acknowledge a write and lose it. The two whose loss would
// cost most are read back once written and written again when missing:
// a commit marker (else the chunk is searched again) and assembled.json
// (else the campaign is reported done without its record). Any other
// lost write costs at most a lease's wait or a duplicate search that the
// commit marker decides; nothing is decided on a listing alone, so a
// stale listing costs a wasted request.
//
// # Cost
//
// Status is one List of chunks/ plus GETs of the small records whose ETag
// changed since this Ledger read them. See the package tests for the
// request counts of a chunk's lifecycle (CountingStore).
package ledger
