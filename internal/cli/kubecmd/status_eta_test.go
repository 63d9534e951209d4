package kubecmd

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

func TestETA(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	start := metav1.NewTime(now.Add(-time.Hour))
	at := func(done int32) *v1alpha1.SearchCampaign {
		return &v1alpha1.SearchCampaign{Status: v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignRunning, StartTime: &start,
			Queries: v1alpha1.QueryCounts{Total: 1000, Done: done}}}
	}

	// Since the start: 100 queries in an hour, 900 to go: 9 hours.
	if got := eta(at(100), nil, now); got != "~9h (900 queries to go at 1.67 queries/min, the average since the start 60m ago)" {
		t.Errorf("average since the start: %q", got)
	}

	// Watching: the last minutes saw 12 queries a minute: the
	// watch's rate wins over the hour's average.
	tr := &etaTracker{}
	for i := 0; i <= 10; i++ {
		tr.observe(now.Add(time.Duration(i-10)*time.Minute), at(int32(100-12*(10-i))))
	}
	if got := eta(at(100), tr, now); got != "~75m (900 queries to go at 12 queries/min, over the last 6m of watching)" {
		t.Errorf("watched rate: %q (samples %v)", got, tr.samples)
	}

	// Too short a watch, or no progress seen: the average again.
	short := &etaTracker{}
	short.observe(now.Add(-time.Second), at(99))
	short.observe(now, at(100))
	if got := eta(at(100), short, now); !strings.Contains(got, "the average since the start") {
		t.Errorf("short watch: %q", got)
	}

	for _, tc := range []struct {
		edit func(*v1alpha1.SearchCampaign)
		want string
	}{
		{func(c *v1alpha1.SearchCampaign) { c.Status.Queries.Done = 0 }, "unknown until the first chunk is committed"},
		{func(c *v1alpha1.SearchCampaign) { c.Status.Queries = v1alpha1.QueryCounts{} }, "unknown until the campaign is planned"},
		{func(c *v1alpha1.SearchCampaign) { c.Spec.Suspend = true }, "none while the campaign is suspended"},
		{func(c *v1alpha1.SearchCampaign) { c.Status.Phase = v1alpha1.CampaignFailed }, "none: the campaign failed"},
		{func(c *v1alpha1.SearchCampaign) { c.Status.Queries.Done, c.Status.Queries.Failed = 998, 2 }, "any moment"},
		{func(c *v1alpha1.SearchCampaign) {
			c.Status.Queries.Done = 1
			c.Status.StartTime = &metav1.Time{Time: now.Add(-24 * 365 * time.Hour)}
		}, "more than 100 days"},
	} {
		c := at(100)
		tc.edit(c)
		if got := eta(c, nil, now); !strings.HasPrefix(got, tc.want) {
			t.Errorf("eta = %q, want %q...", got, tc.want)
		}
	}
}

func TestCopyTail(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int64
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc\n", 1, "c\n"},
		{"a\nb\nc", 1, "c"},
		{"a\nb\nc\n", 9, "a\nb\nc\n"},
		{"a\nb\nc\n", 0, ""},
		{"", 3, ""},
	} {
		var b strings.Builder
		if err := copyTail(&b, strings.NewReader(tc.in), tc.n); err != nil || b.String() != tc.want {
			t.Errorf("copyTail(%q, %d) = %q, %v; want %q", tc.in, tc.n, b.String(), err, tc.want)
		}
	}
}

func TestSubmitParsing(t *testing.T) {
	for in, want := range map[string]string{"-word_size=11": "word_size=11", "--ungapped": "ungapped", "dust=20 64 1": "dust=20 64 1", "-matrix=": "matrix="} {
		opt, err := parseBlastOption(in)
		got := ""
		if err == nil {
			got = opt["name"].(string)
			if v, ok := opt["value"]; ok {
				got += "=" + v.(string)
			}
		}
		if got != want {
			t.Errorf("parseBlastOption(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := parseBlastOption("-=3"); err == nil {
		t.Error("an option without a name was accepted")
	}
	if ref, err := queriesRef("s3://in/a/q.fa"); err != nil || ref["bucket"] != "in" || ref["key"] != "a/q.fa" {
		t.Errorf("queriesRef(s3://in/a/q.fa) = %v, %v", ref, err)
	}
	// A path is a file here, which gets its key when uploaded: never a key.
	for _, local := range []string{"inputs/q.fa", "/q.fa", "q.fa"} {
		if ref, err := queriesRef(local); err != nil || len(ref) != 0 {
			t.Errorf("queriesRef(%q) = %v, %v; want nothing until it is uploaded", local, ref, err)
		}
	}
	for _, bad := range []string{"s3://bucket-only", "gs://b/q.fa", "https://host/q.fa"} {
		if _, err := queriesRef(bad); err == nil {
			t.Errorf("%s was accepted as a queries object", bad)
		}
	}
}
