package blast

import (
	"fmt"
	"slices"
	"strings"
)

// Option is one BLAST option passed through by the user, e.g. -word_size 11.
type Option struct {
	Name  string // without the leading dash
	Value string // empty for flags
}

// optionKind says whether an allowed option takes a value.
type optionKind int

const (
	flag optionKind = iota
	valued
)

// allowed are the options that change how BLAST searches, not what it reads
// or writes or how hits are identified; everything else is refused.
var allowed = map[string]optionKind{
	"task": valued, "word_size": valued, "gapopen": valued, "gapextend": valued,
	"reward": valued, "penalty": valued, "strand": valued, "dust": valued,
	"seg": valued, "soft_masking": valued, "lcase_masking": flag,
	"matrix": valued, "threshold": valued, "comp_based_stats": valued,
	"perc_identity": valued, "qcov_hsp_perc": valued, "max_hsps": valued,
	"xdrop_ungap": valued, "xdrop_gap": valued, "xdrop_gap_final": valued,
	"ungapped": flag, "window_size": valued, "min_raw_gapped_score": valued,
	"query_gencode": valued, "db_gencode": valued, "sum_stats": valued,
	"use_sw_tback": flag, "max_intron_length": valued, "template_type": valued,
	"template_length": valued, "off_diagonal_range": valued, "no_greedy": flag,
	"query_loc": valued, "mt_mode": valued,
	// A taxid filter restricts the subjects; the engine gives the shards
	// the statistics BLAST computes for the filtered database (package
	// taxfilter), and refuses it on a database without a taxid index.
	"taxids": valued, "negative_taxids": valued,
	// psiblast's iterations; its only program (programOptions).
	"num_iterations": valued,
}

// programOptions are options only some programs take: BLAST+ refuses
// them elsewhere, and the SearchCampaign CRD says so at admission.
var programOptions = map[string][]Program{
	"num_iterations": {Psiblast},
}

// CheckProgramOptions says which of opts program p does not take.
func CheckProgramOptions(p Program, opts []Option) error {
	for _, o := range opts {
		if ps, ok := programOptions[o.Name]; ok && !slices.Contains(ps, p) {
			return fmt.Errorf("-%s is an option of %s only, not of %s", o.Name, joinPrograms(ps), p)
		}
	}
	return nil
}

// OptionPrograms returns the programs that take option name: nil for an
// option every program takes.
func OptionPrograms(name string) []Program { return programOptions[name] }

func joinPrograms(ps []Program) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// refused explains the options users most often try that we cannot pass.
var refused = map[string]string{
	"db":                     "the engine chooses the database shards",
	"query":                  "queries come from --queries",
	"out":                    "output goes to --output",
	"outfmt":                 "use --outfmt",
	"remote":                 "searches run on the partition's workers",
	"import_search_strategy": "it replaces the whole search",
	"export_search_strategy": "it writes a file",
	"max_target_seqs":        "use --max-target-seqs (applied globally after the merge)",
	"num_alignments":         "use --max-target-seqs",
	"num_descriptions":       "use --max-target-seqs",
	"evalue":                 "use --evalue",
	"dbsize":                 "shards carry the whole database's statistics",
	"searchsp":               "shards carry the whole database's statistics",
	"parse_deflines":         "it changes how queries are identified",
	"subject":                "the engine searches a database",
	"subject_loc":            "the engine searches a database",
	"culling_limit":          "culling across shards is not supported yet",
	"best_hit_overhang":      "culling across shards is not supported yet",
	"best_hit_score_edge":    "culling across shards is not supported yet",
	"subject_besthit":        "culling across shards is not supported yet",
	"gilist":                 "version 5 BLAST databases have no GI index (BLAST+ 2.12: GI list specified but no ISAM file found): list accessions with -seqidlist",
	"seqidlist":              "give it as a list object (spec.seqidList; blastfleet submit --blast-option=-seqidlist=FILE uploads it)",
	"negative_gilist":        "version 5 BLAST databases have no GI index (BLAST+ 2.12: GI list specified but no ISAM file found): list accessions with -negative_seqidlist",
	"negative_seqidlist":     "give it as a list object (spec.seqidList with negative: true; blastfleet submit uploads -negative_seqidlist=FILE)",
	"taxidlist":              "a file is not on the workers: give it as a list object (spec.taxidList; blastfleet submit --blast-option=-taxidlist=FILE uploads it), or list them, -taxids=9606,10090",
	"negative_taxidlist":     "a file is not on the workers: give it as a list object (spec.taxidList with negative: true; blastfleet submit uploads -negative_taxidlist=FILE), or list them, -negative_taxids=9606,10090",
	"entrez_query":           "it needs a remote search",
	"html":                   "reports' display options are not supported yet: reports print BLAST's defaults",
	"show_gis":               "it changes the output identity",
	"line_length":            "reports' display options are not supported yet: reports print BLAST's defaults",
	"sorthits":               "the merge orders hits (reports print BLAST's default order)",
	"sorthsps":               "the merge orders hits (reports print BLAST's default order)",
	"in_pssm":                "PSSM searches are not supported",
	"window_masker_db":       "it reads a file",
	"window_masker_taxid":    "it reads a file",
	"filtering_db":           "it reads a file",
	"db_soft_mask":           "database masks are not supported yet",
	"db_hard_mask":           "database masks are not supported yet",
	// Measured on plast-example (blastp, 4 shards, in-process, 2 rounds):
	// 2 workers of one thread took 24.3 and 22.8 s, 1 worker of
	// -num_threads 2 took 26.1 and 28.8 s, for the same output.
	"num_threads": "BLAST's threads are a worker's slots: blastfleet-engine --threads (a campaign's spec.partitions.slotsPerWorker)",
}

// ParseOption parses one --blast-option value: "-name=value", "-name value"
// or "-name" for flags.
func ParseOption(s string) (Option, error) {
	if !strings.HasPrefix(s, "-") {
		return Option{}, fmt.Errorf("--blast-option %q: must start with '-' (for example -word_size=11)", s)
	}
	o, err := CheckOption(SplitOption(s))
	if err != nil {
		return Option{}, fmt.Errorf("--blast-option %q: %w", s, err)
	}
	return o, nil
}

// SplitOption reads an option as a command line gives it, "-name=value",
// "-name value" or "-name" (a flag), leading dashes optional: the one
// split of ParseOption and of blastfleet submit, which checks the option
// later, with the campaign's other fields.
func SplitOption(s string) (name, value string, hasValue bool) {
	body := strings.TrimLeft(s, "-")
	name, value, hasValue = strings.Cut(body, "=")
	if !hasValue {
		name, value, hasValue = strings.Cut(body, " ")
	}
	return strings.TrimSpace(name), strings.TrimSpace(value), hasValue
}

// CheckOption is the one check of an option, however it was written: the
// name is allowed, a flag has no value, a value has its option's syntax.
// hasValue tells "-name=" (an empty value) from "-name".
func CheckOption(name, value string, hasValue bool) (Option, error) {
	if why, ok := refused[name]; ok {
		return Option{}, fmt.Errorf("-%s is not allowed: %s", name, why)
	}
	kind, ok := allowed[name]
	if !ok {
		return Option{}, fmt.Errorf("-%s is not on the allowlist of options that only change how BLAST searches", name)
	}
	switch {
	case kind == flag && hasValue:
		return Option{}, fmt.Errorf("-%s takes no value", name)
	case kind == valued && (!hasValue || value == ""):
		return Option{}, fmt.Errorf("-%s needs a value (-%s=VALUE)", name, name)
	}
	if strings.ContainsAny(value, "\x00\n") {
		return Option{}, fmt.Errorf("-%s: value contains a control character", name)
	}
	if why := checkValue(name, value); why != "" {
		return Option{}, fmt.Errorf("%s", why)
	}
	return Option{Name: name, Value: value}, nil
}

// Args renders options as argv elements.
func Args(opts []Option) []string {
	var args []string
	for _, o := range opts {
		args = append(args, "-"+o.Name)
		if o.Value != "" {
			args = append(args, o.Value)
		}
	}
	return args
}
