package kubecmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
)

// running is the status the operator writes for a campaign 12 minutes
// into its run: 120 of 300 queries done, 2 failed.
func running(s *v1alpha1.SearchCampaignStatus) {
	start := metav1.NewTime(time.Now().Add(-12 * time.Minute))
	*s = v1alpha1.SearchCampaignStatus{
		Phase:    v1alpha1.CampaignRunning,
		Location: "s3://blastfleet/campaigns/x",
		Chunks: v1alpha1.ChunkCounts{Total: 42, Committed: 17, Leased: 3, Pending: 22, Retries: 4,
			FailedAttempts: v1alpha1.FailedAttemptCounts{ExitCode: 3, Abandoned: 1}},
		Queries:         v1alpha1.QueryCounts{Total: 300, Done: 120, Failed: 2},
		Partitions:      v1alpha1.PartitionCounts{Desired: 2, Running: 2, Replaced: 1},
		Progress:        "40%",
		ChunksRatio:     "17/42",
		PartitionsRatio: "2/2",
		FailedQueries:   []v1alpha1.FailedQuery{{Index: 17, Reason: "blastp failed (exit code 3): BLAST query/options error"}},
		StartTime:       &start,
		Conditions: []metav1.Condition{{Type: v1alpha1.ConditionProgressing, Status: metav1.ConditionTrue, Reason: "Running",
			Message: "2 partitions working", LastTransitionTime: start}},
	}
}

func complete(s *v1alpha1.SearchCampaignStatus) {
	start, end := metav1.NewTime(time.Now().Add(-time.Hour)), metav1.NewTime(time.Now().Add(-10*time.Minute))
	*s = v1alpha1.SearchCampaignStatus{
		Phase: v1alpha1.CampaignComplete, Location: "s3://blastfleet/campaigns/y", Result: "s3://blastfleet/campaigns/y/result",
		Chunks:  v1alpha1.ChunkCounts{Total: 5, Committed: 5},
		Queries: v1alpha1.QueryCounts{Total: 10, Done: 10}, Progress: "100%", ChunksRatio: "5/5", PartitionsRatio: "0/0",
		StartTime: &start, CompletionTime: &end,
	}
}

func testGet(t *testing.T, f *kubeFixture) {
	f.namespace("lab")
	f.campaign("lab", "a-run")
	f.setStatus("lab", "a-run", running)
	f.campaign("lab", "b-done")
	f.setStatus("lab", "b-done", complete)

	out := f.mustCLI("get", "-n", "lab")
	want := [][]string{
		{"NAME", "PHASE", "PROGRESS", "CHUNKS", "PARTITIONS", "AGE"},
		{"a-run", "Running", "40%", "17/42", "2/2"},
		{"b-done", "Complete", "100%", "5/5", "0/0"},
	}
	checkTable(t, out, want)

	f.setStatus("lab", "a-run", func(s *v1alpha1.SearchCampaignStatus) { s.SitesSummary = "cloud=100,hpc-a=20" })
	f.setStatus("lab", "b-done", func(s *v1alpha1.SearchCampaignStatus) { s.SitesSummary = "cloud=10" })
	out = f.mustCLI("get", "-n", "lab", "-o", "wide")
	checkTable(t, out, [][]string{
		{"NAME", "PHASE", "PROGRESS", "CHUNKS", "PARTITIONS", "SITES", "AGE", "DATABASE", "PROGRAM", "QUERIES", "FAILED", "LOCATION"},
		{"a-run", "Running", "40%", "17/42", "2/2", "cloud=100,hpc-a=20", "*", fxDB, "blastp", "120/300", "2", "s3://blastfleet/campaigns/x"},
		{"b-done", "Complete", "100%", "5/5", "0/0", "cloud=10", "*", fxDB, "blastp", "10/10", "0", "s3://blastfleet/campaigns/y"},
	})

	// kubectl's other output formats, by cli-runtime's printers.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "name"}, "searchcampaign.blastfleet.io/a-run\nsearchcampaign.blastfleet.io/b-done\n"},
		{[]string{"b-done", "-o", "name"}, "searchcampaign.blastfleet.io/b-done\n"},
		// What -o name prints names a campaign everywhere, as bsc/NAME does.
		{[]string{"searchcampaign.blastfleet.io/b-done", "bsc/a-run", "-o", "name"}, "searchcampaign.blastfleet.io/b-done\nsearchcampaign.blastfleet.io/a-run\n"},
		{[]string{"-o", "jsonpath={.items[*].metadata.name}"}, "a-run b-done"},
		{[]string{"b-done", "-o", "jsonpath={.status.phase} {.status.queries.done}"}, "Complete 10"},
		{[]string{"-o", `go-template={{range .items}}{{.metadata.name}}={{.status.progress}};{{end}}`}, "a-run=40%;b-done=100%;"},
		{[]string{"-o", "custom-columns=NAME:.metadata.name,DONE:.status.queries.done,RESULT:.status.result"},
			"NAME     DONE   RESULT\na-run    120    <none>\nb-done   10     s3://blastfleet/campaigns/y/result\n"},
		{[]string{"-o", "custom-columns=NAME:metadata.name,SITES:{.status.sitesSummary}", "--no-headers"}, "a-run    cloud=100,hpc-a=20\nb-done   cloud=10\n"},
	} {
		if out := f.mustCLI(append([]string{"get", "-n", "lab"}, tc.args...)...); out != tc.want {
			t.Errorf("get %q:\n%q\nwant\n%q", tc.args, out, tc.want)
		}
	}
	cols := filepath.Join(t.TempDir(), "cols")
	if err := os.WriteFile(cols, []byte("NAME PHASE\n.metadata.name .status.phase\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checkTable(t, f.mustCLI("get", "-n", "lab", "-o", "custom-columns-file="+cols), [][]string{{"NAME", "PHASE"}, {"a-run", "Running"}, {"b-done", "Complete"}})
	checkTable(t, f.mustCLI("get", "-n", "lab", "--no-headers"), [][]string{{"a-run", "Running"}, {"b-done", "Complete"}})
	for _, bad := range []struct{ format, want string }{
		{"custom-columns=NAME", `"NAME" is not HEADER:JSONPATH`},
		{"jsonpath={.status.phase", "unclosed action"},
	} {
		if _, _, err := f.cli("get", "-n", "lab", "-o", bad.format); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("-o %s: %v, want %q", bad.format, err, bad.want)
		}
	}

	if out := f.mustCLI("get", "-A"); !regexp.MustCompile(`(?m)^lab +a-run +Running`).MatchString(out) || !strings.HasPrefix(out, "NAMESPACE") {
		t.Errorf("get -A:\n%s", out)
	}
	var list v1alpha1.SearchCampaignList
	if err := json.Unmarshal([]byte(f.mustCLI("get", "-n", "lab", "-o", "json")), &list); err != nil || len(list.Items) != 2 ||
		list.Items[0].Status.Queries.Done != 120 || list.Kind != "SearchCampaignList" {
		t.Errorf("get -o json: %v %+v", err, list)
	}
	var one v1alpha1.SearchCampaign
	if err := yaml.Unmarshal([]byte(f.mustCLI("get", "b-done", "-n", "lab", "-o", "yaml")), &one); err != nil || one.Name != "b-done" || one.Kind != "SearchCampaign" {
		t.Errorf("get NAME -o yaml: %v %+v", err, one)
	}

	f.namespace("empty")
	if out, errOut, err := f.cli("get", "-n", "empty"); err != nil || out != "" || !strings.Contains(errOut, "No campaigns found in namespace empty") {
		t.Errorf("empty namespace: %v %q %q", err, out, errOut)
	}
	if _, _, err := f.cli("get", "-o", "table"); err == nil || !strings.Contains(err.Error(), `-o/--output "table": want wide, custom-columns=`) {
		t.Errorf("-o table: %v", err)
	}
}

// checkTable compares a table's cells with want, row by row ("*" matches
// any cell; a missing trailing cell is not checked).
func checkTable(t *testing.T, out string, want [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Errorf("table has %d lines, want %d:\n%s", len(lines), len(want), out)
		return
	}
	for i, line := range lines {
		cells := strings.Fields(line)
		for j, w := range want[i] {
			if j >= len(cells) || (w != "*" && cells[j] != w) {
				t.Errorf("line %d cell %d: got %v, want %q\n%s", i, j, cells, w, out)
				break
			}
		}
	}
}

func testStatus(t *testing.T, f *kubeFixture) {
	c := f.campaign("default", "st-run")
	f.setStatus("default", "st-run", running)
	f.partitionJob(c, 0, 0, nil)
	f.partitionJob(c, 1, 1, nil)

	out := f.mustCLI("status", "st-run")
	for _, want := range []string{
		"Name:         st-run",
		"Phase:        Running, started 12m ago",
		"Search:       blastp against database sprot, outfmt \"6\", 500 target seqs",
		"Queries:      120 of 300 done (40.0%), 2 failed",
		"Progress:     [################........................] 120/300 queries (40.0%)",
		"Chunks:       17 of 42 committed, 3 leased, 0 failed, 22 pending (4 retries)",
		"Failed:       attempts: 3 BLAST exit code, 0 killed by a signal, 0 other errors, 1 abandoned (partition gone)",
		"Partitions:   2 desired: 2 running, 0 queued, 0 failed; 1 replaced so far",
		"Location:     s3://blastfleet/campaigns/x",
		"Result:       none yet: blastfleet results st-run writes it once the campaign is Complete",
		"Report:       blastfleet report st-run (timeline of every rank, task times, failures)",
		"Progressing   True     Running   12m   2 partitions working",
		"#17: blastp failed (exit code 3): BLAST query/options error",
		"st-run-p0-r0   0           0         Starting",
		"st-run-p1-r1   1           1         Starting",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	// 122 queries finished in 12 minutes: about 10 a minute, 178 to go.
	if !regexp.MustCompile(`ETA: +~1[78]m \(178 queries to go at 10\.\d queries/min, the average since the start 12m ago\)`).MatchString(out) {
		t.Errorf("ETA:\n%s", out)
	}

	f.campaign("default", "st-done")
	f.setStatus("default", "st-done", complete)
	out = f.mustCLI("status", "st-done")
	for _, want := range []string{"Phase:        Complete, ran 50m, finished 10m ago", "ETA:          done, in 50m",
		"Result:       s3://blastfleet/campaigns/y/result (blastfleet results st-done --output-file FILE)"} {
		if !strings.Contains(out, want) {
			t.Errorf("status of a complete campaign lacks %q:\n%s", want, out)
		}
	}

	f.campaign("default", "st-new")
	if out := f.mustCLI("status", "st-new"); !strings.Contains(out, "not yet reconciled") || !strings.Contains(out, "not counted yet") {
		t.Errorf("status of a new campaign:\n%s", out)
	}
}

func testStatusJSON(t *testing.T, f *kubeFixture) {
	f.campaign("default", "st-json")
	f.setStatus("default", "st-json", running)
	want := withType(f.get("default", "st-json"))
	for _, format := range []string{"json", "yaml"} {
		var got v1alpha1.SearchCampaign
		if err := yaml.Unmarshal([]byte(f.mustCLI("status", "st-json", "-o", format)), &got); err != nil {
			t.Fatalf("-o %s: %v", format, err)
		}
		if !equality.Semantic.DeepEqual(&got, want) {
			t.Errorf("-o %s does not round-trip:\ngot  %+v\nwant %+v", format, got, *want)
		}
	}
}

// The watch sees a change when the API server reports it, not at its next
// poll: with a poll interval of an hour, Complete still ends it at once.
func testStatusWatchEvents(t *testing.T, f *kubeFixture) {
	old := cli.WatchInterval
	cli.WatchInterval = time.Hour
	t.Cleanup(func() { cli.WatchInterval = old })

	f.campaign("default", "st-events")
	f.setStatus("default", "st-events", running)
	done := make(chan error, 1)
	go func() {
		_, _, err := f.cli("status", "st-events", "--watch")
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	f.setStatus("default", "st-events", complete)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("status --watch did not see the campaign complete within 10 s (it polls every hour here: only a watch event can end it)")
	}
}

func testStatusWatch(t *testing.T, f *kubeFixture) {
	old := cli.WatchInterval
	cli.WatchInterval = 50 * time.Millisecond
	t.Cleanup(func() { cli.WatchInterval = old })

	f.campaign("default", "st-watch")
	f.setStatus("default", "st-watch", running)
	type result struct {
		out, errOut string
		err         error
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, err := f.cli("status", "st-watch", "--watch")
		done <- result{out, errOut, err}
	}()
	time.Sleep(300 * time.Millisecond)
	f.setStatus("default", "st-watch", func(s *v1alpha1.SearchCampaignStatus) { s.Queries.Done = 200 })
	time.Sleep(300 * time.Millisecond)
	f.setStatus("default", "st-watch", complete)
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("status --watch did not return after the campaign completed")
	}
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.errOut)
	}
	// The detail once, then one plain line per change (not a terminal).
	if strings.Count(r.out, "Name:") != 1 || !strings.Contains(r.out, "Running  200/300 queries (66.7%), 2 failed  chunks 17/42  partitions 2/2  ETA ~") ||
		!strings.Contains(r.out, "Complete  10/10 queries (100.0%), 0 failed  chunks 5/5  partitions 0/0  ETA done, in 50m") {
		t.Errorf("watch output:\n%s", r.out)
	}
	if strings.Contains(r.out, "\x1b[") {
		t.Errorf("escape sequences on a pipe:\n%q", r.out)
	}
	if !strings.Contains(r.errOut, "st-watch is Complete; get its result with: blastfleet results st-watch --output-file FILE") {
		t.Errorf("stderr: %s", r.errOut)
	}

	// Failed ends the watch with an error carrying the operator's reason.
	f.campaign("default", "st-failed")
	f.setStatus("default", "st-failed", func(s *v1alpha1.SearchCampaignStatus) {
		s.Phase = v1alpha1.CampaignFailed
		s.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "DeadlineExceeded",
			Message: "ran past spec.activeDeadlineSeconds", LastTransitionTime: metav1.Now()}}
	})
	_, _, err := f.cli("status", "st-failed", "--watch")
	if err == nil || !strings.Contains(err.Error(), "campaign st-failed failed: DeadlineExceeded: ran past spec.activeDeadlineSeconds") {
		t.Errorf("watching a failed campaign: %v", err)
	}
}
