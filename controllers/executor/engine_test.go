package executor

import (
	"strings"
	"testing"
)

// The engine's argv keeps its flags' order, optional ones only when set.
func TestEngineArgv(t *testing.T) {
	e := Engine{Ledger: "s3://b/c", PartitionID: "c-p0-r0", Strategy: "merged", CacheDir: "/scratch/shards"}
	want := "blastfleet-engine --campaign s3://b/c --partition-id c-p0-r0 --strategy merged --cache-dir /scratch/shards"
	if got := strings.Join(e.Argv(), " "); got != want {
		t.Errorf("argv %q, want %q", got, want)
	}
	e.CacheBytes, e.GroupBytes, e.Replicas, e.Workers = 10, 8, []string{"s3://r1/c", "s3://r2/c"}, 2
	want += " --cache-bytes 10 --group-bytes 8 --database-replica s3://r1/c --database-replica s3://r2/c --workers 2"
	if got := strings.Join(e.Argv(), " "); got != want {
		t.Errorf("argv %q, want %q", got, want)
	}
}
