// Package planning makes a campaign's plan: it validates the search, reads
// the database's manifest and every query (as the engine will), and cuts
// the queries into chunks. The CLI's campaign plan and the operator's
// planning Job run it; the ledger stores what it makes.
package planning

import (
	"errors"
	"fmt"
	"math"

	"github.com/blastfleet/blastfleet/internal/blast"
	"github.com/blastfleet/blastfleet/internal/ledger"
	"github.com/blastfleet/blastfleet/internal/merge"
)

// Search is a campaign's search as asked for: blastfleet-engine's flags of
// the same names (and a SearchCampaign's fields).
type Search struct {
	Program       string
	Outfmt        string
	Options       []string // -name=value or -name, as --blast-option takes them
	MaxTargetSeqs int
	Evalue        float64
	TopHits       string
}

// Parsed is a valid search: the plan's canonical form, and the program and
// typed options for BLAST's own check (blast.Preflight).
type Parsed struct {
	Search  ledger.Search
	Program blast.Program
	Options []blast.Option
}

// Parse checks every field at once; the errors name the flag to fix.
// Equal searches give equal canonical forms, so equal plans.
func (s Search) Parse() (*Parsed, error) {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	p := &Parsed{}
	var err error
	if p.Program, err = blast.ParseProgram(s.Program); err != nil {
		add(fmt.Errorf("--program: %w", err))
	}
	format, err := blast.ParseFormat(s.Outfmt)
	if err != nil {
		add(fmt.Errorf("--outfmt: %w", err))
	} else {
		p.Search.Outfmt = format.UserArg()
	}
	for _, v := range s.Options {
		// Any -num_threads is checked here only for its form: threads are
		// a partition's resource, set by blastfleet-engine --threads.
		opt, err := blast.ParseOption(v, math.MaxInt32)
		if err != nil {
			add(err)
			continue
		}
		if opt.Name == "num_threads" {
			add(fmt.Errorf("--blast-option %q: -num_threads is not part of a plan: give blastfleet-engine --threads to each partition", v))
			continue
		}
		p.Options = append(p.Options, opt)
		canon := "-" + opt.Name
		if opt.Value != "" {
			canon += "=" + opt.Value
		}
		p.Search.Options = append(p.Search.Options, canon)
	}
	if _, err := merge.ParseTopHits(s.TopHits); err != nil {
		add(err)
	}
	if s.MaxTargetSeqs < 1 {
		add(fmt.Errorf("--max-target-seqs must be ≥ 1, not %d", s.MaxTargetSeqs))
	}
	if s.Evalue < 0 || math.IsNaN(s.Evalue) || math.IsInf(s.Evalue, 0) {
		add(fmt.Errorf("--evalue must be > 0 (or 0 for BLAST's default), not %v", s.Evalue))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	p.Search.Program = string(p.Program)
	p.Search.MaxTargetSeqs = s.MaxTargetSeqs
	p.Search.Evalue = s.Evalue
	p.Search.TopHits = s.TopHits
	if p.Search.TopHits == "" {
		p.Search.TopHits = "auto"
	}
	return p, nil
}
