package controllers

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/blast"
	"github.com/blastfleet/blastfleet/internal/merge"
	"github.com/blastfleet/blastfleet/internal/search"
)

// campaignSearch is the campaign's search, checked by package search as
// the planning Job and the engine check it. Admission already refuses
// what the CRD's schema and CEL rules can say; this catches the rest (and
// a CRD older than the operator) before any Job starts.
func campaignSearch(c *v1alpha1.SearchCampaign) (search.Spec, error) {
	s := c.Spec
	spec := search.Spec{Program: blast.Program(s.Program), MaxTargetSeqs: int(s.MaxTargetSeqs)}
	var errs []error
	var err error
	if spec.Format, err = blast.ParseFormat(s.Outfmt); err != nil {
		errs = append(errs, fmt.Errorf("spec.outfmt: %w", err))
	}
	if spec.TopHits, err = merge.ParseTopHits(s.TopHits); err != nil {
		errs = append(errs, fmt.Errorf("spec.topHits: %w", err))
	}
	if spec.Metadata, err = search.ParseTransfer(s.Transfer); err != nil {
		errs = append(errs, fmt.Errorf("spec.transfer: %w", err))
	}
	if spec.Batching, err = blast.ParseBatching(s.Batching); err != nil {
		errs = append(errs, fmt.Errorf("spec.batching: %w", err))
	}
	if s.Evalue != "" {
		if spec.Evalue, err = strconv.ParseFloat(s.Evalue, 64); err != nil {
			errs = append(errs, fmt.Errorf("spec.evalue %q is not a number", s.Evalue))
		}
	}
	for i, o := range s.BlastOptions {
		opt, err := blast.CheckOption(o.Name, o.Value, o.Value != "")
		if err != nil {
			errs = append(errs, fmt.Errorf("spec.blastOptions[%d]: %w", i, err))
			continue
		}
		spec.Options = append(spec.Options, opt)
	}
	if l := s.TaxidList; l != nil {
		// Read into the plan by the planning Job.
		spec.TaxidList = &search.TaxidList{Location: objectURL(s.Output, l.ObjectReference), Negative: l.Negative}
	}
	if l := s.SeqidList; l != nil {
		// Read by the planning Job and the workers.
		spec.SeqidList = &search.SeqidList{Location: objectURL(s.Output, l.ObjectReference), Negative: l.Negative}
	}
	if len(errs) == 0 {
		if err := spec.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("spec: %w", err))
		}
	}
	return spec, errors.Join(errs...)
}
