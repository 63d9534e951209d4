package controllers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

func TestProgress(t *testing.T) {
	for _, c := range []struct {
		done, failed, total int
		want                string
	}{
		{0, 0, 0, ""},
		{0, 0, 71, "0%"},
		{40, 0, 100, "40%"},
		{100, 0, 100, "100%"},
		{0, 71, 71, "0% (71 failed)"}, // every query failed: never 100%
		{69, 2, 71, "97% (2 failed)"},
	} {
		if got := progress(c.done, c.failed, c.total); got != c.want {
			t.Errorf("progress(%d, %d, %d) = %q, want %q", c.done, c.failed, c.total, got, c.want)
		}
	}
}

func TestEndgamePoll(t *testing.T) {
	for _, c := range []struct {
		name string
		st   ledger.Status
		poll time.Duration
		want time.Duration
	}{
		{"chunks still to lease", ledger.Status{Pending: 3, Leased: 2}, 15 * time.Second, 0},
		{"last chunks leased", ledger.Status{Pending: 0, Leased: 2}, 15 * time.Second, 3 * time.Second},
		{"last chunks leased, dev stack", ledger.Status{Pending: 0, Leased: 1}, 3 * time.Second, time.Second},
		{"nothing leased (waiting for a partition)", ledger.Status{Pending: 0, Leased: 0, Committed: 4}, 15 * time.Second, 0},
		{"complete", ledger.Status{Complete: true}, 15 * time.Second, 0},
	} {
		if got := endgamePoll(&c.st, c.poll); got != c.want {
			t.Errorf("%s: endgamePoll = %v, want %v", c.name, got, c.want)
		}
	}
}

// Failed queries reach status and the Degraded message bounded, however
// many there are and however long their ids (an author's FASTA) and
// reasons (BLAST's stderr): an oversized status is refused by the API
// server and the campaign could never record its end.
func TestFailedQueriesBounded(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	var qs []ledger.FailedQuery
	for i := range 5000 {
		qs = append(qs, ledger.FailedQuery{Query: i, ID: long, Reason: ledger.FailureReason{Message: long, StderrTail: long}})
	}
	got := failedQueryStatus(qs)
	if len(got) != maxFailedListed {
		t.Errorf("%d failed queries in status, want %d", len(got), maxFailedListed)
	}
	for _, q := range got {
		if len(q.ID) > maxFailedID || len(q.Reason) > maxFailedReason || !strings.HasSuffix(q.ID, "...") {
			t.Fatalf("failed query of %d-byte id, %d-byte reason", len(q.ID), len(q.Reason))
		}
	}
	if names := failedNames(qs, 3); len(names) > 4*maxFailedID || !strings.HasSuffix(names, "and 4997 more") {
		t.Errorf("failedNames: %d bytes, ending %q", len(names), names[max(0, len(names)-20):])
	}
}

// No controller file assembles a result: the result's assembly reads
// every part through SHA-256, work for a partition or the assembly Job.
func TestNoControllerAssembles(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{".Assemble(", ".StreamResults(", "ReadResults("} {
			if strings.Contains(string(src), call) {
				t.Errorf("%s calls %s: the operator must leave result assembly to the partitions and the assembly Job", f, call)
			}
		}
	}
}

// The assembly Job runs the CLI's assemble on the campaign's location,
// bounded by the assemble timeout (at least a minute).
func TestAssembleJob(t *testing.T) {
	db := &v1alpha1.BlastDatabase{}
	db.Name, db.Namespace = "db", "ns"
	c := aCampaign().build()
	job := assembleJob(c, db, "s3://b/c", "img", 30)
	ctr := job.Spec.Template.Spec.Containers[0]
	if got := strings.Join(append(ctr.Command, ctr.Args...), " "); got != "blastfleet campaign assemble s3://b/c" {
		t.Errorf("command %q", got)
	}
	if job.Name != AssembleJobName(c.Name) || job.Labels[LabelComponent] != componentAssemble || *job.Spec.ActiveDeadlineSeconds != 60 {
		t.Errorf("job %s labels %v deadline %d", job.Name, job.Labels, *job.Spec.ActiveDeadlineSeconds)
	}
}
