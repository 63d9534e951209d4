package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/plan/search"
)

const (
	enum = "+kubebuilder:validation:Enum="
	xval = "+kubebuilder:validation:XValidation:"
)

// rules are the markers internal/bio/blast's tables decide.
func rules() []rule {
	whole, wholeNames := wholeDatabasePrograms()
	columns, reports, merged := outfmtCodes()
	return []rule{
		{name: "program enum", anchor: []string{"type Program string"}, match: prefix(enum),
			lines: []string{enum + strings.Join(programs(), ";")}},
		{name: "outfmt pattern", anchor: []string{"Outfmt string `json:\"outfmt,omitempty\"`"}, match: prefix("+kubebuilder:validation:Pattern="),
			lines: []string{fmt.Sprintf("+kubebuilder:validation:Pattern=`^((%s)( +(%s))*|%s)$`", columns, strings.Join(append([]string{"std"}, blast.OutfmtColumns()...), "|"), reports)}},
		{name: "transfer enum", anchor: []string{"Transfer string `json:\"transfer,omitempty\"`"}, match: prefix(enum),
			lines: []string{enum + search.TransferFull + ";" + search.TransferMetadata}},
		{name: "batching enum", anchor: []string{"Batching string `json:\"batching,omitempty\"`"}, match: prefix(enum),
			lines: []string{enum + strings.Join(batchings(), ";")}},
		{name: "options of some programs", anchor: []string{"type SearchCampaignSpec struct"}, match: has("is an option of"),
			lines: programOptionRules()},
		{name: "whole-database programs", anchor: []string{"type SearchCampaignSpec struct"}, match: has("write tabular output only"),
			lines: []string{
				xval + fmt.Sprintf(`rule="!(self.program in [%s]) || !has(self.outfmt) || self.outfmt.matches('^(%s)( |$)')",message="%s write tabular output only: outfmt %s",fieldPath=".outfmt"`,
					whole, merged, wholeNames, strings.ReplaceAll(merged, "|", " or ")),
				xval + fmt.Sprintf(`rule="!(self.program in [%s]) || !has(self.transfer) || self.transfer != '%s'",message="%s write tabular output only: transfer %s regenerates it",fieldPath=".transfer"`,
					whole, search.TransferMetadata, wholeNames, search.TransferMetadata),
			}},
		{name: "option flags", anchor: []string{"type BlastOption struct"}, match: has("is a flag and takes no value", "this option needs a value"),
			lines: flagRules()},
		{name: "option values", anchor: []string{"type BlastOption struct"}, match: has("self.value.matches("),
			lines: []string{valueRule()}},
		{name: "option names", anchor: []string{"type BlastOption struct", "Name string `json:\"name\"`"}, match: prefix(enum),
			lines: []string{enum + strings.Join(blast.CampaignOptions(), ";")}},
	}
}

func prefix(p string) func(string) bool {
	return func(m string) bool { return strings.HasPrefix(m, p) }
}

func has(subs ...string) func(string) bool {
	return func(m string) bool {
		return strings.HasPrefix(m, xval) && slices.ContainsFunc(subs, func(s string) bool { return strings.Contains(m, s) })
	}
}

func programs() []string {
	var names []string
	for _, p := range blast.Programs {
		names = append(names, string(p))
	}
	return names
}

func batchings() []string {
	var names []string
	for _, b := range blast.Batchings {
		names = append(names, string(b))
	}
	return names
}

// celList is names as a CEL list's elements: 'a', 'b'.
func celList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	return strings.Join(quoted, ", ")
}

// wholeDatabasePrograms are the programs that search the whole database
// in one task, sorted: as a CEL list's elements, and for a message.
func wholeDatabasePrograms() (list, names string) {
	var ps []string
	for _, p := range blast.Programs {
		if p.WholeDatabase() {
			ps = append(ps, string(p))
		}
	}
	slices.Sort(ps)
	return celList(ps), strings.Join(ps[:len(ps)-1], ", ") + " and " + ps[len(ps)-1]
}

// outfmtCodes asks blast.NewFormat which codes take columns, which are
// reports, and which of the tabular ones are merged rather than
// regenerated: each a regexp alternation.
func outfmtCodes() (columns, reports, merged string) {
	var cols, reps, mer []string
	for code := range 100 {
		c := strconv.Itoa(code)
		if f, err := blast.NewFormat(code, []string{"qseqid"}); err == nil {
			cols = append(cols, c)
			if !f.Regenerated() {
				mer = append(mer, c)
			}
		} else if _, err := blast.NewFormat(code, nil); err == nil {
			reps = append(reps, c)
		}
	}
	return strings.Join(cols, "|"), strings.Join(reps, "|"), strings.Join(mer, "|")
}

// programOptionRules: an option some programs take only is refused for
// the others.
func programOptionRules() []string {
	var lines []string
	for _, name := range blast.CampaignOptions() {
		ps := blast.OptionPrograms(name)
		if ps == nil {
			continue
		}
		var names []string
		for _, p := range ps {
			names = append(names, string(p))
		}
		cond := "self.program == '" + names[0] + "'"
		if len(names) > 1 {
			cond = "self.program in [" + celList(names) + "]"
		}
		lines = append(lines, xval+fmt.Sprintf(`rule="%s || !has(self.blastOptions) || !self.blastOptions.exists(o, o.name == '%s')",message="-%s is an option of %s only",fieldPath=".blastOptions"`,
			cond, name, name, strings.Join(names, ", ")))
	}
	return lines
}

// flagRules: a flag takes no value, every other option one.
func flagRules() []string {
	_, flags := blast.AllowedOptions()
	l := "[" + celList(flags) + "]"
	return []string{
		xval + fmt.Sprintf(`rule="!(self.name in %s) || !has(self.value)",message="this option is a flag and takes no value",messageExpression="'-' + self.name + ' is a flag and takes no value'"`, l),
		xval + fmt.Sprintf(`rule="self.name in %s || (has(self.value) && size(self.value) > 0)",message="this option needs a value",messageExpression="'-' + self.name + ' needs a value'"`, l),
	}
}

// valueRule: each valued option's value has the syntax ParseOption
// checks (internal/bio/blast's patterns, which CEL's matches() reads alike).
func valueRule() string {
	syntaxes := blast.ValueSyntaxes()
	var entries []string
	for _, name := range blast.CampaignOptions() {
		if sx, ok := syntaxes[name]; ok {
			if strings.ContainsAny(sx.Pattern, `'"\`) {
				panic(fmt.Sprintf("-%s's pattern %q needs quoting in CEL", name, sx.Pattern))
			}
			entries = append(entries, fmt.Sprintf("'%s': '%s'", name, sx.Pattern))
		}
	}
	m := "{" + strings.Join(entries, ", ") + "}"
	return xval + fmt.Sprintf(`rule="!has(self.value) || !(self.name in %s) || self.value.matches(%s[self.name])",messageExpression="'-' + self.name + ' does not take ' + self.value + ': the value must match ' + %s[self.name]"`, m, m, m)
}
