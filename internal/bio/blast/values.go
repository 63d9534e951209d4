package blast

import (
	"fmt"
	"regexp"
	"strings"
)

// valueRule is what one option's value must look like: a pattern (anchored)
// and how to say so. The SearchCampaign CRD's CEL rules check the same
// patterns at admission; test/integration proves the API server and
// ParseOption agree on every option.
type valueRule struct {
	pattern *regexp.Regexp
	want    string // "an integer", "one of: ...", for messages
	good    string // a value it accepts and one it refuses, for tests
	bad     string
}

// Patterns, written in RE2 that CEL's matches() accepts too.
const (
	intPattern    = `^-?[0-9]+$`
	uintPattern   = `^[0-9]+$`
	numberPattern = `^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$`
)

func enumRule(values ...string) valueRule {
	return valueRule{regexp.MustCompile(`^(` + strings.Join(values, "|") + `)$`), "one of " + strings.Join(values, ", "), values[0], "nope"}
}

var (
	integer    = valueRule{regexp.MustCompile(intPattern), "an integer", "-3", "abc"}
	nonNegInt  = valueRule{regexp.MustCompile(uintPattern), "a whole number (0 or more)", "11", "3 -out /tmp/x"}
	positive   = valueRule{regexp.MustCompile(`^[1-9][0-9]*$`), "a positive integer", "1", "0"}
	number     = valueRule{regexp.MustCompile(numberPattern), "a number", "0.5", "1e"}
	trueFalse  = enumRule("true", "false")
	taxidList  = valueRule{regexp.MustCompile(`^[1-9][0-9]*(,[1-9][0-9]*)*$`), "taxids separated by commas (9606,10090)", "9606,10090", "9606, human"}
	valueRules = map[string]valueRule{
		"task": enumRule("blastn", "blastn-short", "megablast", "dc-megablast", "rmblastn",
			"blastp", "blastp-fast", "blastp-short", "blastx", "blastx-fast", "tblastn", "tblastn-fast"),
		"word_size":            nonNegInt,
		"gapopen":              nonNegInt,
		"gapextend":            nonNegInt,
		"reward":               nonNegInt,
		"penalty":              integer,
		"strand":               enumRule("both", "plus", "minus"),
		"dust":                 {regexp.MustCompile(`^(yes|no|[0-9]+ [0-9]+ [0-9]+)$`), "yes, no or three whole numbers \"level window linker\"", "20 64 1", "20 64"},
		"seg":                  {regexp.MustCompile(`^(yes|no|[0-9]+ [0-9.]+ [0-9.]+)$`), "yes, no or \"window locut hicut\"", "12 2.2 2.5", "maybe"},
		"soft_masking":         trueFalse,
		"matrix":               enumRule("BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "BLOSUM90", "PAM30", "PAM70", "PAM250", "IDENTITY"),
		"threshold":            number,
		"comp_based_stats":     enumRule("0", "1", "2", "3", "D", "d", "F", "f", "T", "t"),
		"perc_identity":        number,
		"qcov_hsp_perc":        number,
		"max_hsps":             nonNegInt,
		"xdrop_ungap":          number,
		"xdrop_gap":            number,
		"xdrop_gap_final":      number,
		"window_size":          nonNegInt,
		"min_raw_gapped_score": integer,
		"query_gencode":        nonNegInt,
		"db_gencode":           nonNegInt,
		"sum_stats":            trueFalse,
		"max_intron_length":    nonNegInt,
		"template_type":        enumRule("coding", "coding_and_optimal", "optimal"),
		"template_length":      enumRule("16", "18", "21"),
		"off_diagonal_range":   nonNegInt,
		"query_loc":            {regexp.MustCompile(`^[0-9]+-[0-9]+$`), "a range \"start-stop\"", "1-100", "1..100"},
		"mt_mode":              enumRule("0", "1"),
		"num_iterations":       nonNegInt,
		"taxids":               taxidList,
		"negative_taxids":      taxidList,
	}
)

// checkValue says what is wrong with an option's value, or "".
func checkValue(name, value string) string {
	r, ok := valueRules[name]
	if !ok || r.pattern.MatchString(value) {
		return ""
	}
	return fmt.Sprintf("-%s takes %s, not %q", name, r.want, value)
}

// ValueSyntax is one valued option's rule as others need it: the pattern
// its value must match (RE2, anchored; what the CRD's CEL rule says), a
// value ParseOption accepts and one it refuses.
type ValueSyntax struct{ Pattern, Good, Bad string }

// ValueSyntaxes returns every valued option's ValueSyntax.
func ValueSyntaxes() map[string]ValueSyntax {
	m := make(map[string]ValueSyntax, len(valueRules))
	for name, r := range valueRules {
		m[name] = ValueSyntax{Pattern: r.pattern.String(), Good: r.good, Bad: r.bad}
	}
	return m
}
