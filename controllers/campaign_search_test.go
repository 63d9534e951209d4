package controllers

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/plan/search"
)

func searchCampaign(opts ...v1alpha1.BlastOption) *v1alpha1.SearchCampaign {
	c := aCampaign().build()
	c.Spec.Program, c.Spec.Outfmt, c.Spec.MaxTargetSeqs, c.Spec.TopHits, c.Spec.Evalue = "blastn", "6 qseqid sseqid evalue", 50, "auto", "1e-5"
	c.Spec.BlastOptions = opts
	return c
}

func TestCampaignSearch(t *testing.T) {
	c := searchCampaign(v1alpha1.BlastOption{Name: "word_size", Value: "11"}, v1alpha1.BlastOption{Name: "dust", Value: "20 64 1"},
		v1alpha1.BlastOption{Name: "ungapped"})
	spec, err := campaignSearch(c)
	if err != nil {
		t.Fatal(err)
	}
	// What the planning Job is told parses to the same spec the operator
	// checked: the plan holds what was admitted.
	want := search.MustParse(search.Request{Program: "blastn", Outfmt: "6 qseqid sseqid evalue", MaxTargetSeqs: 50, Evalue: 1e-5,
		Options: []string{"-word_size=11", "-dust=20 64 1", "-ungapped"}})
	if !reflect.DeepEqual(spec, want) {
		t.Errorf("spec %+v, want %+v", spec, want)
	}
	job := mustPlanJob(t, c, spec, &v1alpha1.BlastDatabase{}, "s3://b/c", "img")
	if got := planJobSearch(t, job); !reflect.DeepEqual(got, spec) {
		t.Errorf("planning Job's search %+v, want %+v", got, spec)
	}
	for _, flag := range []string{"--program", "--outfmt", "--blast-option", "--evalue"} {
		if slices.ContainsFunc(job.Spec.Template.Spec.Containers[0].Args, func(a string) bool { return strings.HasPrefix(a, flag) }) {
			t.Errorf("planning Job args %q hold %s: the search goes whole, as --search-json", job.Spec.Template.Spec.Containers[0].Args, flag)
		}
	}

	for _, tc := range []struct {
		name string
		edit func(*v1alpha1.SearchCampaign)
		want string
	}{
		{"value", func(c *v1alpha1.SearchCampaign) {
			c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "word_size", Value: "abc"}}
		},
			"spec.blastOptions[0]: -word_size takes a whole number"},
		{"flag with a value", func(c *v1alpha1.SearchCampaign) {
			c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "ungapped", Value: "1"}}
		},
			"spec.blastOptions[0]: -ungapped takes no value"},
		{"threads", func(c *v1alpha1.SearchCampaign) {
			c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "num_threads", Value: "2"}}
		},
			"slotsPerWorker"},
		{"outfmt", func(c *v1alpha1.SearchCampaign) { c.Spec.Outfmt = "18" }, "spec.outfmt"},
		{"sam for blastp", func(c *v1alpha1.SearchCampaign) { c.Spec.Program, c.Spec.Outfmt = "blastp", "17" }, "SAM for blastn only"},
		{"sam as metadata", func(c *v1alpha1.SearchCampaign) { c.Spec.Outfmt, c.Spec.Transfer = "17", "metadata" }, "--transfer full"},
		{"transfer", func(c *v1alpha1.SearchCampaign) { c.Spec.Transfer = "some" }, "spec.transfer"},
		{"evalue", func(c *v1alpha1.SearchCampaign) { c.Spec.Evalue = "tiny" }, `spec.evalue "tiny"`},
		{"max target seqs", func(c *v1alpha1.SearchCampaign) { c.Spec.MaxTargetSeqs = 0 }, "--max-target-seqs"},
	} {
		c := searchCampaign()
		tc.edit(c)
		if _, err := campaignSearch(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", tc.name, err, tc.want)
		}
	}
}

// anySearch is a valid search, for Jobs whose search does not matter.
var anySearch = search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500})

// mustPlanJob is c's planning Job for spec.
func mustPlanJob(t *testing.T, c *v1alpha1.SearchCampaign, spec search.Spec, db *v1alpha1.BlastDatabase, loc, image string) *batchv1.Job {
	t.Helper()
	job, err := planJob(c, spec, db, loc, image)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// planJobSearch is the search a planning Job gives campaign plan, read
// as campaign plan reads it.
func planJobSearch(t *testing.T, job *batchv1.Job) search.Spec {
	t.Helper()
	args := job.Spec.Template.Spec.Containers[0].Args
	i := slices.Index(args, "--search-json")
	if i < 0 || i+1 == len(args) {
		t.Fatalf("planning Job args %q lack --search-json", args)
	}
	s, err := search.ParseJSON([]byte(args[i+1]))
	if err != nil {
		t.Fatalf("planning Job's --search-json %s: %v", args[i+1], err)
	}
	return s
}
