package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/seqidfilter"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// seqidListOptions are BLAST's sequence id list options.
var seqidListOptions = []string{"seqidlist", "negative_seqidlist"}

// SeqidList is a sequence id list file (BLAST's -seqidlist, or
// -negative_seqidlist when Negative) kept where partitions read it: an
// object (s3://bucket/key) or a path on a shared filesystem. Workers read
// it with the database's sequence table, which gives every shard group
// the statistics BLAST computes for the whole list (package seqidfilter).
type SeqidList struct {
	Location string `json:"location"`
	Negative bool   `json:"negative,omitempty"`
}

// Option is the BLAST option the file is given to.
func (l SeqidList) Option() string {
	if l.Negative {
		return "negative_seqidlist"
	}
	return "seqidlist"
}

// Arg is the list as --blast-option takes it: -seqidlist=LOCATION.
func (l SeqidList) Arg() string { return "-" + l.Option() + "=" + l.Location }

// SeqidListOption splits "-seqidlist=FILE" (or "-negative_seqidlist
// FILE"): ok only for a sequence id list option.
func SeqidListOption(opt string) (name, path string, ok bool) {
	name, path, _ = blast.SplitOption(opt)
	return name, path, strings.HasPrefix(opt, "-") && (name == seqidListOptions[0] || name == seqidListOptions[1])
}

// CheckSeqidListFile reads a list file here as workers will, so an empty
// or binary list is refused before the file is uploaded.
func CheckSeqidListFile(name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--blast-option -%s: %w", name, err)
	}
	defer f.Close()
	if _, err := seqidfilter.ParseList(f, name == "negative_seqidlist", path); err != nil {
		return fmt.Errorf("--blast-option -%s: %w", name, err)
	}
	return nil
}

// seqidListExcludes are the options BLAST+ 2.12 refuses beside a sequence
// id list ("Incompatible with argument"), gilist and negative_gilist
// included (refused anyway: version 5 databases have no GI index).
var seqidListExcludes = []string{"taxids", "negative_taxids", "taxidlist", "negative_taxidlist", "gilist", "negative_gilist", "seqidlist", "negative_seqidlist"}

// checkSeqidList refuses what BLAST+ refuses beside a sequence id list,
// and what blastfleet cannot serve under one yet.
func (s Spec) checkSeqidList() error {
	l := s.SeqidList
	if l == nil {
		return nil
	}
	if l.Location == "" {
		return fmt.Errorf("-%s: no location", l.Option())
	}
	if s.TaxidList != nil {
		return fmt.Errorf("-%s and -%s exclude each other (BLAST+: incompatible arguments)", l.Option(), s.TaxidList.Option())
	}
	for _, o := range s.Options {
		for _, x := range seqidListExcludes {
			if o.Name == x {
				return fmt.Errorf("-%s and -%s exclude each other (BLAST+: incompatible arguments)", l.Option(), o.Name)
			}
		}
	}
	if s.Program.WholeDatabase() {
		return fmt.Errorf("-%s with --program %s is not supported yet", l.Option(), s.Program)
	}
	if s.Metadata || (s.Format != nil && s.Format.Regenerated()) {
		return fmt.Errorf("-%s: regenerated output under a sequence id list is not supported yet (tabular output, 6 or 10, is)", l.Option())
	}
	return nil
}

// takeSeqidList sets s.SeqidList from a -seqidlist option; false for any
// other option. A second list is an error, as for BLAST.
func (s *Spec) takeSeqidList(opt string) (bool, error) {
	name, loc, ok := SeqidListOption(opt)
	if !ok {
		return false, nil
	}
	if loc == "" {
		return true, fmt.Errorf("--blast-option %q: -%s needs a file of sequence ids (-%s=FILE)", opt, name, name)
	}
	if s.SeqidList != nil {
		return true, fmt.Errorf("--blast-option %s: one sequence id list only (BLAST: -seqidlist and -negative_seqidlist exclude each other)", opt)
	}
	s.SeqidList = &SeqidList{Location: loc, Negative: name == "negative_seqidlist"}
	return true, nil
}

// Read reads the list from its location (an object, with the output's
// credentials, as the campaign's other files beside its queries, or a
// file).
func (l SeqidList) Read(ctx context.Context) (*seqidfilter.List, error) {
	st, key, err := objstore.OpenObjectAs(ctx, objstore.RoleOutput, l.Location)
	if err != nil {
		return nil, fmt.Errorf("-%s %s: %w", l.Option(), l.Location, err)
	}
	rc, err := st.Get(ctx, key)
	if errors.Is(err, objstore.ErrNotExist) {
		return nil, fmt.Errorf("-%s: the sequence id list %s does not exist", l.Option(), l.Location)
	} else if err != nil {
		return nil, fmt.Errorf("-%s: reading %s: %w", l.Option(), l.Location, err)
	}
	defer rc.Close()
	list, err := seqidfilter.ParseList(rc, l.Negative, l.Location)
	if err != nil {
		return nil, fmt.Errorf("-%s: %w", l.Option(), err)
	}
	return list, nil
}
