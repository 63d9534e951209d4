package cli

import "errors"

// Exit codes of "status --wait" (and --watch, --exit-code), one per
// outcome, so scripts can tell them apart; docs/cli.md lists them. Any
// other error exits ExitError.
const (
	ExitComplete  = 0 // Complete, every query searched
	ExitError     = 1 // the command failed (flags, cluster, storage, ...)
	ExitFailed    = 2 // the campaign Failed
	ExitDegraded  = 3 // Complete, but Degraded: some queries failed after every retry
	ExitSuspended = 4 // Suspended: stopped by the user, resumable
	ExitTimeout   = 5 // --timeout passed before an outcome
	ExitRunning   = 6 // --exit-code without --wait: not finished yet
)

// CodedError is an error that sets the process's exit code.
type CodedError struct {
	Code int
	Err  error
}

func (e *CodedError) Error() string { return e.Err.Error() }
func (e *CodedError) Unwrap() error { return e.Err }

// ExitCode is the exit code for a command's error: 0 for none, the code
// of a CodedError in its chain, else ExitError.
func ExitCode(err error) int {
	if err == nil {
		return ExitComplete
	}
	var c *CodedError
	if errors.As(err, &c) {
		return c.Code
	}
	return ExitError
}
