package controllers

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/search"
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
	args := planJob(c, spec, &v1alpha1.BlastDatabase{}, "s3://b/c", "img").Spec.Template.Spec.Containers[0].Args
	for _, a := range []string{"--blast-option=-dust=20 64 1", "--blast-option=-ungapped", "1e-05"} {
		if !slices.Contains(args, a) {
			t.Errorf("planning Job args %q lack %q", args, a)
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
