package search

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

// wire is a Spec in a plan: typed fields, so a reader checks values
// instead of splitting command lines.
type wire struct {
	Program       string            `json:"program"`
	Outfmt        json.RawMessage   `json:"outfmt"`
	MaxTargetSeqs int               `json:"maxTargetSeqs"`
	Evalue        float64           `json:"evalue"`
	Options       []json.RawMessage `json:"options"`
	TopHits       string            `json:"topHits"`
	// Transfer is absent (full) in plans before metadata transfer.
	Transfer string `json:"transfer,omitempty"`
	Batching string `json:"batching"`
	// TaxidList is where the taxids of -taxids (or -negative_taxids)
	// were read from, when a list object.
	TaxidList *TaxidList `json:"taxidList,omitempty"`
	// SeqidList is the sequence id list workers read.
	SeqidList *SeqidList `json:"seqidList,omitempty"`
}

type wireFormat struct {
	Code    int      `json:"code"`
	Columns []string `json:"columns"`
}

// option is {"name": "word_size", "value": "11"}; a flag has no value.
type option struct {
	Name  string  `json:"name"`
	Value *string `json:"value,omitempty"`
}

func (s Spec) MarshalJSON() ([]byte, error) {
	if s.Format == nil {
		return nil, errors.New("search spec without an output format")
	}
	outfmt, err := json.Marshal(wireFormat{Code: s.Format.Code, Columns: s.Format.User})
	if err != nil {
		return nil, err
	}
	w := wire{Program: string(s.Program), Outfmt: outfmt, MaxTargetSeqs: s.MaxTargetSeqs,
		Evalue: s.Evalue, Options: []json.RawMessage{}, TopHits: s.TopHits.Arg(), TaxidList: s.TaxidList,
		SeqidList: s.SeqidList}
	if s.Metadata {
		w.Transfer = TransferMetadata
	}
	b, err := blast.ParseBatching(string(s.Batching))
	if err != nil {
		return nil, err
	}
	w.Batching = string(b)
	for _, o := range s.Options {
		opt := option{Name: o.Name}
		if o.Value != "" {
			opt.Value = &o.Value
		}
		b, err := json.Marshal(opt)
		if err != nil {
			return nil, err
		}
		w.Options = append(w.Options, b)
	}
	return json.Marshal(w)
}

// UnmarshalJSON checks what it reads as Parse does: a plan edited by hand,
// or written by another version, is refused naming the field.
func (s *Spec) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	var errs []error
	add := func(field string, err error) { errs = append(errs, fmt.Errorf("search.%s: %w", field, err)) }
	var err error
	if s.Program, err = blast.ParseProgram(w.Program); err != nil {
		add("program", err)
	}
	if s.Format, err = decodeFormat(w.Outfmt); err != nil {
		add("outfmt", err)
	}
	s.Options = nil
	for i, raw := range w.Options {
		opt, err := decodeOption(raw)
		if err != nil {
			add(fmt.Sprintf("options[%d]", i), err)
			continue
		}
		s.Options = append(s.Options, opt)
	}
	if s.TopHits, err = merge.ParseTopHits(w.TopHits); err != nil {
		add("topHits", err)
	}
	s.MaxTargetSeqs, s.Evalue = w.MaxTargetSeqs, w.Evalue
	if err := s.checkCutoffs(); err != nil {
		add("cut-offs", err)
	}
	if s.Metadata, err = ParseTransfer(w.Transfer); err != nil {
		add("transfer", err)
	}
	s.TaxidList = w.TaxidList
	if err := s.checkTaxidList(); err != nil {
		add("taxidList", err)
	}
	s.SeqidList = w.SeqidList
	if w.Batching == "" {
		add("batching", errors.New("missing: blast or alone"))
	} else if s.Batching, err = blast.ParseBatching(w.Batching); err != nil {
		add("batching", err)
	}
	if err := s.checkSeqidList(); err != nil {
		add("seqidList", err)
	}
	return errors.Join(errs...)
}

func decodeOption(raw json.RawMessage) (blast.Option, error) {
	var o option
	if err := json.Unmarshal(raw, &o); err != nil {
		return blast.Option{}, err
	}
	v := ""
	if o.Value != nil {
		v = *o.Value
	}
	return blast.CheckOption(o.Name, v, o.Value != nil)
}

// decodeFormat reads {"code": 6, "columns": [...]}.
func decodeFormat(raw json.RawMessage) (*blast.Format, error) {
	var f wireFormat
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return blast.NewFormat(f.Code, f.Columns)
}

// ParseJSON reads a search given whole, as a plan stores it (campaign
// plan's --search-json, which the operator's planning Job gives): each
// field checked as UnmarshalJSON checks it, then the whole as the
// operator checks a campaign's (CheckWhole), so the Job refuses what the
// operator would.
func ParseJSON(b []byte) (Spec, error) {
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return Spec{}, err
	}
	return s, s.CheckWhole()
}
