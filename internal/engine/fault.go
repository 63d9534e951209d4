package engine

import (
	"os"
	"strings"

	"github.com/blastfleet/blastfleet/internal/blast"
)

// FailQueriesEnv names queries whose tasks fail as if BLAST had crashed on
// them: a test hook for poison-query handling, documented in
// docs/engine.md. It is read by workers at every task.
const FailQueriesEnv = "BLASTFLEET_FAIL_QUERIES"

func injectedFailure(ids []string) error {
	list := os.Getenv(FailQueriesEnv)
	if list == "" {
		return nil
	}
	poison := strings.Split(list, ",")
	for _, id := range ids {
		for _, p := range poison {
			if id == p {
				return &blast.ExitError{Argv: []string{"blast"}, ExitCode: 99,
					StderrTail: "injected failure on query " + id + " (" + FailQueriesEnv + ")"}
			}
		}
	}
	return nil
}
