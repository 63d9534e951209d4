package fromapi

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/plan/search"
)

func campaignSpec() v1alpha1.SearchCampaignSpec {
	return v1alpha1.SearchCampaignSpec{Program: "blastn", Outfmt: "6 qseqid sseqid evalue", MaxTargetSeqs: 50, TopHits: "auto", Evalue: "1e-5",
		BlastOptions: []v1alpha1.BlastOption{{Name: "word_size", Value: "11"}, {Name: "dust", Value: "20 64 1"}, {Name: "ungapped"}}}
}

// A campaign's fields give the spec the same search as flags give.
func TestSpec(t *testing.T) {
	s := campaignSpec()
	got, err := Spec(&s)
	if err != nil {
		t.Fatal(err)
	}
	want := search.MustParse(search.Request{Program: "blastn", Outfmt: "6 qseqid sseqid evalue", MaxTargetSeqs: 50, Evalue: 1e-5,
		Options: []string{"-word_size=11", "-dust=20 64 1", "-ungapped"}})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spec %+v, want %+v", got, want)
	}

	s.Output.Bucket = "b"
	s.TaxidList = &v1alpha1.TaxidList{ObjectReference: v1alpha1.ObjectReference{Key: "lists/t.txt"}, Negative: true}
	got, err = Spec(&s)
	if err != nil || got.TaxidList == nil || *got.TaxidList != (search.TaxidList{Location: "s3://b/lists/t.txt", Negative: true}) {
		t.Errorf("taxid list: %+v, %v", got.TaxidList, err)
	}

	s.TaxidList = nil
	s.SeqidList = &v1alpha1.SeqidList{ObjectReference: v1alpha1.ObjectReference{Bucket: "lists", Key: "/ids.txt"}}
	got, err = Spec(&s)
	if err != nil || got.SeqidList == nil || *got.SeqidList != (search.SeqidList{Location: "s3://lists/ids.txt"}) {
		t.Errorf("seqid list: %+v, %v", got.SeqidList, err)
	}
}

// Every field in error is named, each as a FieldError, all at once.
func TestSpecFieldErrors(t *testing.T) {
	s := campaignSpec()
	s.Outfmt, s.Evalue, s.TopHits = "18", "tiny", "overfetch=0"
	s.BlastOptions = []v1alpha1.BlastOption{{Name: "word_size", Value: "11"}, {Name: "ungapped", Value: "1"}, {Name: "out", Value: "/x"}}
	_, err := Spec(&s)
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *FieldError
		if !errors.As(e, &fe) || !strings.HasPrefix(fe.Error(), fe.Field) {
			t.Errorf("%v: not a FieldError starting with its field", e)
			continue
		}
		fields = append(fields, fe.Field)
	}
	want := []string{"spec.outfmt", "spec.topHits", "spec.evalue", "spec.blastOptions[1]", "spec.blastOptions[2]"}
	if !slices.Equal(fields, want) {
		t.Errorf("fields %q, want %q (%v)", fields, want, err)
	}
	for _, w := range []string{`spec.evalue "tiny" is not a number`, "spec.blastOptions[1]: -ungapped takes no value", "spec.blastOptions[2]: -out is not allowed"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}

	// A rule across fields names the spec.
	s = campaignSpec()
	s.Program, s.Outfmt = "blastp", "17"
	s.BlastOptions = nil
	var fe *FieldError
	if _, err := Spec(&s); !errors.As(err, &fe) || fe.Field != "spec" || !strings.Contains(err.Error(), "SAM") {
		t.Errorf("SAM for blastp: %v", err)
	}
	// A taxid list without its object is refused.
	s = campaignSpec()
	s.TaxidList = &v1alpha1.TaxidList{}
	if _, err := Spec(&s); err == nil || !strings.Contains(err.Error(), "no location") {
		t.Errorf("taxid list without a location: %v", err)
	}
}

// Default fills in what is left out, and only that; a defaulted campaign
// converts.
func TestDefault(t *testing.T) {
	s := v1alpha1.SearchCampaignSpec{Program: "blastp"}
	if _, err := Spec(&s); err == nil {
		t.Fatal("a campaign without its defaults converted")
	}
	Default(&s)
	if s.Outfmt != "6" || s.MaxTargetSeqs != 500 || s.TopHits != "auto" || s.Transfer != "full" || s.Batching != "blast" {
		t.Errorf("defaulted %+v", s)
	}
	if _, err := Spec(&s); err != nil {
		t.Error(err)
	}
	given := campaignSpec()
	kept := given
	Default(&given)
	kept.Transfer, kept.Batching = "full", "blast"
	if !reflect.DeepEqual(given, kept) {
		t.Errorf("Default changed given fields: %+v", given)
	}
}
