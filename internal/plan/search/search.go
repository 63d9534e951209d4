// Package search is a campaign's search, typed: the program, the output
// format, BLAST's options and the cut-offs. Request.Parse is its one
// validator, used by the CLI, the planning Job and the engine; the plan
// stores the Spec it returns, and reading a plan checks it the same way,
// so a partition never parses a search from strings again.
package search

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

// Spec is a valid search.
type Spec struct {
	Program       blast.Program
	Format        *blast.Format
	Options       []blast.Option
	MaxTargetSeqs int
	Evalue        float64 // 0: BLAST's default (10)
	TopHits       merge.TopHits
	// Metadata: partitions commit, per query, only the ids of its kept
	// subjects (ParaMEDIC's metadata), and the output is regenerated at
	// home (blastfleet campaign results); false: the output itself.
	Metadata bool
	// Batching is how queries are cut into BLAST+ batches: BLAST+'s own
	// (empty or blast) or each query alone.
	Batching blast.Batching `json:"batching,omitempty"`
	// TaxidList is a taxid list kept as an object; once planned, its ids
	// are in Options too.
	TaxidList *TaxidList
	// SeqidList is a sequence id list (-seqidlist, -negative_seqidlist),
	// which workers read.
	SeqidList *SeqidList `json:"seqidList,omitempty"`
}

// BatchLetters is B, the letters of the search's BLAST+ batches
// (blast.BatchLetters).
func (s Spec) BatchLetters() int { return blast.BatchLetters(s.Program, s.Options, s.Batching) }

// Transfers are the values of --transfer: what partitions commit.
const (
	TransferFull     = "full"
	TransferMetadata = "metadata"
)

// Request is a search as given on a command line: the flags of the same
// names of blastfleet-engine and campaign plan (and a SearchCampaign's
// fields).
type Request struct {
	Program       string
	Outfmt        string
	Options       []string // -name=value or -name, as --blast-option takes them
	MaxTargetSeqs int
	Evalue        float64
	TopHits       string // "" is auto
	Transfer      string // "" is full
	Batching      string // "" is blast
}

// Parse checks every field at once; the errors name the flag to fix.
func (r Request) Parse() (Spec, error) {
	var s Spec
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	if s.Program, err = blast.ParseProgram(r.Program); err != nil {
		add(fmt.Errorf("--program: %w", err))
	}
	if s.Format, err = blast.ParseFormat(r.Outfmt); err != nil {
		add(fmt.Errorf("--outfmt: %w", err))
	}
	for _, v := range r.Options {
		if taken, err := s.takeSeqidList(v); taken {
			if err != nil {
				add(err)
			}
			continue
		}
		// A list in a store is the plan's to read (Spec.ReadTaxidList).
		if name, loc, ok := TaxidListOption(v); ok && strings.Contains(loc, "://") {
			if s.TaxidList != nil {
				add(fmt.Errorf("--blast-option %s: one taxid list only (BLAST takes one)", v))
				continue
			}
			s.TaxidList = &TaxidList{Location: loc, Negative: name == "negative_taxidlist"}
			continue
		}
		v, err := ExpandTaxidList(v)
		if err != nil {
			add(err)
			continue
		}
		opt, err := blast.ParseOption(v)
		if err != nil {
			add(err)
			continue
		}
		s.Options = append(s.Options, opt)
	}
	if s.TopHits, err = merge.ParseTopHits(r.TopHits); err != nil {
		add(err)
	}
	s.MaxTargetSeqs, s.Evalue = r.MaxTargetSeqs, r.Evalue
	if err := s.checkCutoffs(); err != nil {
		add(err)
	}
	if s.Metadata, err = ParseTransfer(r.Transfer); err != nil {
		add(err)
	}
	if err := s.checkRegeneration(); err != nil {
		add(err)
	}
	if err := s.checkSAM(); err != nil {
		add(err)
	}
	if s.Batching, err = blast.ParseBatching(r.Batching); err != nil {
		add(err)
	}
	if s.Program != "" {
		add(s.checkProgram())
	}
	// Given as a request, the list's ids are not read yet: any inline
	// taxid filter is a second one.
	if l := s.TaxidList; l != nil && slices.ContainsFunc(s.Options, func(o blast.Option) bool { return o.Name == "taxids" || o.Name == "negative_taxids" }) {
		add(fmt.Errorf("-%s excludes -taxids and -negative_taxids (BLAST takes one taxid filter)", l.Option()))
	} else if err := s.checkTaxidList(); err != nil {
		add(err)
	}
	if err := s.checkSeqidList(); err != nil {
		add(err)
	}
	return s, errors.Join(errs...)
}

// checkProgram refuses options of other programs, and regenerated output
// for the programs that search the whole database in one task:
// regeneration searches only the subjects hit, which changes psiblast's
// iterations and rpsblast's statistics.
func (s Spec) checkProgram() error {
	var errs []error
	if err := blast.CheckProgramOptions(s.Program, s.Options); err != nil {
		errs = append(errs, fmt.Errorf("--blast-option: %w", err))
	}
	if s.Program.WholeDatabase() && (s.Metadata || (s.Format != nil && s.Format.Regenerated())) {
		errs = append(errs, fmt.Errorf("--program %s writes tabular output only (--outfmt 6 or 10, --transfer full): regenerated output re-searches only the subjects hit, which changes its answer", s.Program))
	}
	return errors.Join(errs...)
}

// checkTaxidList refuses a taxid list object beside taxids given inline,
// which BLAST refuses as well.
func (s Spec) checkTaxidList() error {
	if s.TaxidList == nil {
		return nil
	}
	if s.TaxidList.Location == "" {
		return fmt.Errorf("-%s: no location", s.TaxidList.Option())
	}
	for _, o := range s.Options {
		if (o.Name == "taxids" || o.Name == "negative_taxids") && o.Name != s.TaxidList.inline() {
			return fmt.Errorf("-%s and -%s exclude each other (BLAST takes one taxid filter)", s.TaxidList.Option(), o.Name)
		}
	}
	return nil
}

// ParseTransfer reads --transfer: full (or empty) or metadata.
func ParseTransfer(v string) (metadata bool, err error) {
	switch v {
	case "", TransferFull:
		return false, nil
	case TransferMetadata:
		return true, nil
	}
	return false, fmt.Errorf("--transfer %q: want %s (the output) or %s (the ids of each query's hits, regenerated at home)", v, TransferFull, TransferMetadata)
}

// checkRegeneration refuses what regeneration cannot give BLAST's answer
// for yet: a taxid filter changes the database's statistics (the
// search's groups carry the filtered ones), which a regeneration alias
// does not.
func (s Spec) checkRegeneration() error {
	if !s.Metadata && (s.Format == nil || !s.Format.Regenerated()) {
		return nil
	}
	opts := s.Options
	if l := s.TaxidList; l != nil {
		opts = append(slices.Clone(opts), blast.Option{Name: l.Option()})
	}
	for _, o := range opts {
		if o.Name == "taxids" || o.Name == "negative_taxids" || taxidLists[o.Name] != "" {
			what := "--transfer metadata"
			if s.Format != nil && s.Format.Regenerated() {
				what = fmt.Sprintf("--outfmt %d", s.Format.Code)
			}
			return fmt.Errorf("%s with -%s: regenerated output under a taxid filter is not supported yet (tabular output, 6 or 10, is)", what, o.Name)
		}
	}
	return nil
}

// checkSAM refuses SAM (-outfmt 17) where BLAST+ does not print it
// (programs other than blastn) and where its header, made when the whole
// output is written, cannot be: metadata regenerated at home.
func (s Spec) checkSAM() error {
	if s.Format == nil || s.Format.Code != blast.SAM {
		return nil
	}
	if s.Program != "" && s.Program != blast.Blastn {
		return fmt.Errorf("--outfmt 17 (SAM): BLAST+ prints SAM for blastn only, not %s", s.Program)
	}
	if s.Metadata {
		return fmt.Errorf("--outfmt 17 (SAM) with --transfer metadata is not supported: use --transfer full")
	}
	return nil
}

// Transfer is --transfer's value for s.
func (s Spec) Transfer() string {
	if s.Metadata {
		return TransferMetadata
	}
	return TransferFull
}

// Validate checks a Spec built in code (a test's, a benchmark's) as Parse
// checks flags.
func (s Spec) Validate() error {
	var errs []error
	for _, o := range s.Options {
		if _, err := blast.CheckOption(o.Name, o.Value, o.Value != ""); err != nil {
			errs = append(errs, fmt.Errorf("--blast-option: %w", err))
		}
	}
	return errors.Join(append(errs, s.CheckWhole())...)
}

// CheckWhole is Validate but for each option alone: the checks across
// fields, for a Spec whose options were each checked as they were
// converted (package fromapi, a plan's JSON).
func (s Spec) CheckWhole() error {
	errs := []error{s.checkRegeneration(), s.checkSAM(), s.checkTaxidList(), s.checkSeqidList()}
	if _, err := blast.ParseProgram(string(s.Program)); err != nil {
		errs = append(errs, fmt.Errorf("--program: %w", err))
	} else {
		errs = append(errs, s.checkProgram())
	}
	if s.Format == nil {
		errs = append(errs, errors.New("--outfmt is required"))
	}
	if _, err := blast.ParseBatching(string(s.Batching)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(append(errs, s.checkCutoffs())...)
}

func (s Spec) checkCutoffs() error {
	var errs []error
	if s.MaxTargetSeqs < 1 {
		errs = append(errs, fmt.Errorf("--max-target-seqs must be ≥ 1, not %d", s.MaxTargetSeqs))
	}
	if s.Evalue < 0 || math.IsNaN(s.Evalue) || math.IsInf(s.Evalue, 0) {
		errs = append(errs, fmt.Errorf("--evalue must be > 0 (or 0 for BLAST's default), not %v", s.Evalue))
	}
	return errors.Join(errs...)
}

// Request is s as flags again: Request().Parse() gives s back. The
// operator's planning Job and the CLI's messages use it.
func (s Spec) Request() Request {
	r := Request{Program: string(s.Program), MaxTargetSeqs: s.MaxTargetSeqs, Evalue: s.Evalue, TopHits: s.TopHits.Arg(),
		Transfer: s.Transfer(), Batching: string(s.Batching)}
	if s.Format != nil {
		r.Outfmt = s.Format.UserArg()
	}
	for _, o := range s.Options {
		if s.TaxidList != nil && o.Name == s.TaxidList.inline() {
			continue // read from the list: the list stands for it
		}
		v := "-" + o.Name
		if o.Value != "" {
			v += "=" + o.Value
		}
		r.Options = append(r.Options, v)
	}
	if s.TaxidList != nil {
		r.Options = append(r.Options, s.TaxidList.Arg())
	}
	if s.SeqidList != nil {
		r.Options = append(r.Options, s.SeqidList.Arg())
	}
	return r
}

// MustParse is Parse for searches written in code, such as tests'
// fixtures; it panics on an invalid one.
func MustParse(r Request) Spec {
	s, err := r.Parse()
	if err != nil {
		panic(err)
	}
	return s
}
