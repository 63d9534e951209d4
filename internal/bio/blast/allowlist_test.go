package blast

import (
	"slices"
	"strings"
	"testing"
)

func TestAllowedOptions(t *testing.T) {
	withValue, flags := AllowedOptions()
	if !slices.IsSorted(withValue) || !slices.IsSorted(flags) {
		t.Fatalf("not sorted: %v / %v", withValue, flags)
	}
	if got, want := len(withValue)+len(flags), len(allowed); got != want {
		t.Fatalf("%d options returned, the allowlist has %d", got, want)
	}
	wantFlags := []string{"lcase_masking", "no_greedy", "ungapped", "use_sw_tback"}
	if !slices.Equal(flags, wantFlags) {
		t.Errorf("flags = %v, want %v", flags, wantFlags)
	}
	// What AllowedOptions says is what ParseOption does, and every valued
	// option has a value rule.
	syntaxes := ValueSyntaxes()
	for _, name := range withValue {
		sx, ok := syntaxes[name]
		if !ok {
			t.Errorf("valued option %s has no value rule (values.go)", name)
			continue
		}
		if _, err := ParseOption("-" + name + "=" + sx.Good); err != nil {
			t.Errorf("valued option %s with a good value: %v", name, err)
		}
		if _, err := ParseOption("-" + name + "=" + sx.Bad); err == nil || !strings.Contains(err.Error(), "-"+name+" takes") {
			t.Errorf("valued option %s with the bad value %q: err = %v, want it to say what -%s takes", name, sx.Bad, err, name)
		}
		if _, err := ParseOption("-" + name); err == nil || !strings.Contains(err.Error(), "needs a value") {
			t.Errorf("valued option %s without a value: err = %v, want 'needs a value'", name, err)
		}
	}
	for _, name := range flags {
		if _, err := ParseOption("-" + name); err != nil {
			t.Errorf("flag %s: %v", name, err)
		}
		if _, err := ParseOption("-" + name + "=1"); err == nil || !strings.Contains(err.Error(), "takes no value") {
			t.Errorf("flag %s with a value: err = %v, want 'takes no value'", name, err)
		}
	}
}

func TestRefusedOptions(t *testing.T) {
	refusedNames := RefusedOptions()
	if !slices.IsSorted(refusedNames) || len(refusedNames) != len(refused) {
		t.Fatalf("RefusedOptions() = %v", refusedNames)
	}
	withValue, flags := AllowedOptions()
	for _, name := range refusedNames {
		if slices.Contains(withValue, name) || slices.Contains(flags, name) {
			t.Errorf("%s is both allowed and refused", name)
		}
		if _, err := ParseOption("-" + name + "=1"); err == nil || !strings.Contains(err.Error(), "is not allowed") {
			t.Errorf("refused option %s: err = %v, want 'is not allowed'", name, err)
		}
	}
	for _, name := range []string{"db", "outfmt", "max_target_seqs", "evalue", "out", "query"} {
		if !slices.Contains(refusedNames, name) {
			t.Errorf("%s should be refused", name)
		}
	}
}

func TestOutfmtColumns(t *testing.T) {
	cols := OutfmtColumns()
	if !slices.IsSorted(cols) || len(cols) != len(knownColumns) || slices.Contains(cols, "std") {
		t.Fatalf("OutfmtColumns() = %v", cols)
	}
	for _, c := range cols {
		if _, err := ParseFormat("6 " + c); err != nil {
			t.Errorf("column %s: %v", c, err)
		}
	}
	for _, c := range append(slices.Clone(stdColumns), mergeColumns...) {
		if !slices.Contains(cols, c) {
			t.Errorf("column %s, which the engine relies on, is missing", c)
		}
	}
}

func TestCheckProgramOptions(t *testing.T) {
	iter := []Option{{Name: "num_iterations", Value: "3"}}
	if err := CheckProgramOptions(Psiblast, iter); err != nil {
		t.Errorf("psiblast -num_iterations: %v", err)
	}
	for _, p := range []Program{Blastp, Rpsblast, Blastn} {
		err := CheckProgramOptions(p, iter)
		if err == nil || !strings.Contains(err.Error(), "-num_iterations is an option of psiblast only, not of "+string(p)) {
			t.Errorf("%s -num_iterations: %v", p, err)
		}
	}
	if err := CheckProgramOptions(Blastp, []Option{{Name: "word_size", Value: "3"}}); err != nil {
		t.Errorf("blastp -word_size: %v", err)
	}
}
