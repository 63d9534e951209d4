package engine

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
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

// FailRegenOnceEnv names a directory: the first regeneration of each query
// fails (a marker file per query id there says it did), later ones run. A
// test hook: a regeneration's failure is retried like a search task's.
const FailRegenOnceEnv = "BLASTFLEET_FAIL_REGEN_ONCE"

func injectedRegenFailure(id string) error {
	dir := os.Getenv(FailRegenOnceEnv)
	if dir == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, strings.ReplaceAll(id, "/", "_")), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil // failed once already (or the hook cannot mark it: no fault)
	}
	f.Close()
	return &blast.ExitError{Argv: []string{"blast"}, ExitCode: 99,
		StderrTail: "injected failure regenerating query " + id + " (" + FailRegenOnceEnv + ")"}
}
