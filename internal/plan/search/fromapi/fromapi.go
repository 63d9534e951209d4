// Package fromapi is the one conversion of a SearchCampaign's search
// fields into a search.Spec, checked as the planning Job checks it. The
// operator runs it before any Job starts and submit before it creates a
// campaign; package search itself stays free of the API's types, which
// the engine does not link.
package fromapi

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/plan/search"
)

// FieldError is what is wrong with one field of a SearchCampaign, named
// by its path ("spec.blastOptions[2]"; "spec" for a rule across fields),
// which its message starts with.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// ObjectURL is where ref is, s3://bucket/key: in the output's bucket
// unless it names its own.
func ObjectURL(out v1alpha1.ObjectStorage, ref v1alpha1.ObjectReference) string {
	return "s3://" + cmp.Or(ref.Bucket, out.Bucket) + "/" + strings.TrimPrefix(ref.Key, "/")
}

// Spec is the search s describes. Its taxid and sequence id lists are
// objects beside the output (ObjectURL): the planning Job reads a taxid
// list into the plan, and it and the workers read a sequence id list.
// The error joins a *FieldError per field, all at once.
// Admission already refuses what the CRD's schema and CEL rules can say;
// this catches the rest, and a CRD older than the caller.
func Spec(s *v1alpha1.SearchCampaignSpec) (search.Spec, error) {
	// A list that names no object has no location, which the checks
	// across fields refuse.
	listURL := func(ref v1alpha1.ObjectReference) string {
		if strings.TrimPrefix(ref.Key, "/") == "" {
			return ""
		}
		return ObjectURL(s.Output, ref)
	}
	spec := search.Spec{Program: blast.Program(s.Program), MaxTargetSeqs: int(s.MaxTargetSeqs)}
	var errs []error
	add := func(field string, err error) {
		errs = append(errs, &FieldError{Field: field, Err: fmt.Errorf("%s: %w", field, err)})
	}
	var err error
	if spec.Format, err = blast.ParseFormat(s.Outfmt); err != nil {
		add("spec.outfmt", err)
	}
	if spec.TopHits, err = merge.ParseTopHits(s.TopHits); err != nil {
		add("spec.topHits", err)
	}
	if spec.Metadata, err = search.ParseTransfer(s.Transfer); err != nil {
		add("spec.transfer", err)
	}
	if spec.Batching, err = blast.ParseBatching(s.Batching); err != nil {
		add("spec.batching", err)
	}
	if s.Evalue != "" {
		if spec.Evalue, err = strconv.ParseFloat(s.Evalue, 64); err != nil {
			errs = append(errs, &FieldError{Field: "spec.evalue", Err: fmt.Errorf("spec.evalue %q is not a number", s.Evalue)})
		}
	}
	for i, o := range s.BlastOptions {
		opt, err := blast.CheckOption(o.Name, o.Value, o.Value != "")
		if err != nil {
			add(fmt.Sprintf("spec.blastOptions[%d]", i), err)
			continue
		}
		spec.Options = append(spec.Options, opt)
	}
	if l := s.TaxidList; l != nil {
		spec.TaxidList = &search.TaxidList{Location: listURL(l.ObjectReference), Negative: l.Negative}
	}
	if l := s.SeqidList; l != nil {
		spec.SeqidList = &search.SeqidList{Location: listURL(l.ObjectReference), Negative: l.Negative}
	}
	if len(errs) == 0 {
		if err := spec.CheckWhole(); err != nil {
			add("spec", err)
		}
	}
	return spec, errors.Join(errs...)
}

// Defaults are the CRD's defaults of the search fields: what the API
// server fills in when a campaign leaves them out.
var Defaults = v1alpha1.SearchCampaignSpec{Outfmt: "6", MaxTargetSeqs: blast.DefaultMaxTargetSeqs, TopHits: "auto",
	Transfer: search.TransferFull, Batching: string(blast.BatchingBLAST)}

// Default fills in s's search fields left out, as the API server will.
func Default(s *v1alpha1.SearchCampaignSpec) {
	d := Defaults
	for _, f := range []struct{ v, def *string }{{&s.Outfmt, &d.Outfmt}, {&s.TopHits, &d.TopHits}, {&s.Transfer, &d.Transfer}, {&s.Batching, &d.Batching}} {
		if *f.v == "" {
			*f.v = *f.def
		}
	}
	if s.MaxTargetSeqs == 0 {
		s.MaxTargetSeqs = d.MaxTargetSeqs
	}
}
