package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// campaignSpecSchema reads the generated SearchCampaign CRD, as installed
// by kubetest, and returns its spec's schema.
func campaignSpecSchema(t *testing.T) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	spec, ok := crdSchema(t, "blastfleet.io_searchcampaigns.yaml").Properties["spec"]
	if !ok {
		t.Fatal("the CRD's schema has no spec")
	}
	return spec
}

// crdSchema reads a generated CRD of config/crd/bases, as installed by
// kubetest, and returns its one version's schema.
func crdSchema(t *testing.T, file string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "config/crd/bases", file))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil {
		t.Fatalf("%s: want one version with a schema, got %d versions", file, len(crd.Spec.Versions))
	}
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

// TestCRDBlastOptionsMatchEngine: the BLAST options the API server lets
// through are exactly those the engine accepts, and the CRD's flags (the
// options that take no value) are the engine's.
func TestCRDBlastOptionsMatchEngine(t *testing.T) {
	spec := campaignSpecSchema(t)
	opts, ok := spec.Properties["blastOptions"]
	if !ok || opts.Items == nil || opts.Items.Schema == nil {
		t.Fatal("the CRD has no spec.blastOptions items")
	}
	option := opts.Items.Schema

	var enum []string
	for _, v := range option.Properties["name"].Enum {
		var s string
		if err := json.Unmarshal(v.Raw, &s); err != nil {
			t.Fatalf("enum value %s: %v", v.Raw, err)
		}
		enum = append(enum, s)
	}
	slices.Sort(enum)
	if all := blast.CampaignOptions(); !slices.Equal(enum, all) {
		t.Errorf("the CRD's BlastOption name enum differs from the engine's campaign options (internal/bio/blast):\n  only in the CRD:    %v\n  only in the engine: %v",
			minus(enum, all), minus(all, enum))
	}
	_, flags := blast.AllowedOptions()
	for _, name := range blast.RefusedOptions() {
		if slices.Contains(enum, name) {
			t.Errorf("the CRD allows %s, which the engine refuses", name)
		}
	}

	// Every rule on a BlastOption that lists option names lists the flags.
	list := regexp.MustCompile(`\[\s*('[a-z_]+'(\s*,\s*'[a-z_]+')*)\s*\]`)
	rules := 0
	for _, r := range option.XValidations {
		m := list.FindStringSubmatch(r.Rule)
		if m == nil || !strings.Contains(r.Message, "flag") && !strings.Contains(r.Message, "needs a value") {
			continue // not a rule about flags (the taxid lists' length)
		}
		rules++
		var crdFlags []string
		for _, f := range strings.Split(m[1], ",") {
			crdFlags = append(crdFlags, strings.Trim(strings.TrimSpace(f), "'"))
		}
		slices.Sort(crdFlags)
		if !slices.Equal(crdFlags, flags) {
			t.Errorf("rule %q lists the flags %v; the engine's flags are %v", r.Rule, crdFlags, flags)
		}
	}
	if rules == 0 {
		t.Errorf("no rule on BlastOption lists the flags; rules: %+v", option.XValidations)
	}
}

// TestCRDOutfmtMatchesEngine: the outfmt pattern allows exactly the
// columns the engine's ParseFormat knows, and std, and its report formats.
func TestCRDOutfmtMatchesEngine(t *testing.T) {
	pattern := campaignSpecSchema(t).Properties["outfmt"].Pattern
	m := regexp.MustCompile(`^\^\(\(6\|7\|10\)\( \+\(([a-z_|]+)\)\)\*\|([0-9|]+)\)\$$`).FindStringSubmatch(pattern)
	if m == nil {
		t.Fatalf("outfmt pattern %q is not ^((6|7|10)( +(col|col|...))*|code|code...)$", pattern)
	}
	var reports []string
	for _, c := range append(slices.Clone(blast.ReportCodes), blast.SAM) {
		if c != 7 {
			reports = append(reports, strconv.Itoa(c))
		}
	}
	if m[2] != strings.Join(reports, "|") {
		t.Errorf("the CRD's report formats %s differ from the engine's %v", m[2], blast.ReportCodes)
	}
	cols := strings.Split(m[1], "|")
	slices.Sort(cols)
	want := append(blast.OutfmtColumns(), "std")
	slices.Sort(want)
	if !slices.Equal(cols, want) {
		t.Errorf("the CRD's outfmt columns differ from the engine's (internal/bio/blast):\n  only in the CRD:    %v\n  only in the engine: %v",
			minus(cols, want), minus(want, cols))
	}
	// The pattern as the API server applies it (Go's regexp).
	re := regexp.MustCompile(pattern)
	for _, ok := range []string{"6", "6 std", "6 qseqid sseqid evalue bitscore", "6 " + strings.Join(blast.OutfmtColumns(), " "), "10", "10 std stitle",
		"0", "5", "7", "7 std", "7 qseqid sseqid evalue", "15", "16", "17"} {
		if !re.MatchString(ok) {
			t.Errorf("outfmt %q does not match", ok)
		}
	}
	for _, bad := range []string{"", "11 std", "17 std", "18", "5 std", "0 qseqid", "1", "100", "6 qseqidx", "6 qseqid,sseqid", "6 ", " 6", "05", "150"} {
		if re.MatchString(bad) {
			t.Errorf("outfmt %q matches", bad)
		}
	}
}

// minus is a without b's elements.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestCRDBlastOptionValuesMatchEngine: the CRD's rule on option values holds
// the engine's patterns (internal/bio/blast/values.go), and the API server
// accepts and refuses, for every option, what the engine does, naming the
// option: a typo such as word_size: abc is refused by kubectl apply, not by
// every chunk of a running campaign.
func TestCRDBlastOptionValuesMatchEngine(t *testing.T) {
	spec := campaignSpecSchema(t)
	option := spec.Properties["blastOptions"].Items.Schema
	var rule string
	for _, r := range option.XValidations {
		if strings.Contains(r.Rule, "self.value.matches(") {
			rule = r.Rule
		}
	}
	if rule == "" {
		t.Fatal("no rule on a BlastOption checks its value's syntax")
	}
	// The rule's first map literal: 'name': 'pattern', ...
	first := rule[strings.Index(rule, "{"):strings.Index(rule, "}")]
	crd := map[string]string{}
	for _, m := range regexp.MustCompile(`'([a-z_]+)': '([^']*)'`).FindAllStringSubmatch(first, -1) {
		crd[m[1]] = m[2]
	}
	// The engine's rules for the options a campaign takes (num_threads is
	// the engine's own).
	engine := map[string]blast.ValueSyntax{}
	for name, sx := range blast.ValueSyntaxes() {
		if slices.Contains(blast.CampaignOptions(), name) {
			engine[name] = sx
		}
	}
	for name, sx := range engine {
		if crd[name] != sx.Pattern {
			t.Errorf("-%s: the CRD's pattern %q, the engine's %q", name, crd[name], sx.Pattern)
		}
	}
	for name := range crd {
		if _, ok := engine[name]; !ok {
			t.Errorf("-%s: the CRD has a pattern, the engine none", name)
		}
	}

	env := kubetest.Start(t)
	ctx := context.Background()
	for i, name := range slices.Sorted(maps.Keys(engine)) {
		good, bad := engine[name].Good, engine[name].Bad
		if _, err := blast.ParseOption("-" + name + "=" + good); err != nil {
			t.Fatalf("the engine refuses its own good sample: %v", err)
		}
		// An option of some programs only is tried with one of them.
		program := "blastp"
		if ps := blast.OptionPrograms(name); len(ps) > 0 {
			program = string(ps[0])
		}
		if err := env.Client.Create(ctx, campaign(fmt.Sprintf("value-ok-%d", i)).withProgram(program).withOption(name, good).object()); err != nil {
			t.Errorf("-%s %q: refused by the API server, accepted by the engine: %v", name, good, err)
		}
		if _, err := blast.ParseOption("-" + name + "=" + bad); err == nil {
			t.Fatalf("the engine accepts its own bad sample -%s %q", name, bad)
		}
		expectInvalid(t, env.Client.Create(ctx, campaign(fmt.Sprintf("value-bad-%d", i)).withProgram(program).withOption(name, bad).object()),
			"spec.blastOptions[0]", "-"+name+" does not take "+bad)
	}
}

// TestCRDTaxidListsOfRealLength: a real taxid list (hundreds to about
// 2,000 ids) is accepted inline, while other options keep their 256
// characters, and the taxid list its bound, each refused by name.
func TestCRDTaxidListsOfRealLength(t *testing.T) {
	ids := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", 1000000+i*37)
		}
		return b.String()
	}
	env := kubetest.Start(t)
	ctx := context.Background()
	for _, name := range []string{"taxids", "negative_taxids"} {
		value := ids(2000) // 15,999 characters
		if _, err := blast.ParseOption("-" + name + "=" + value); err != nil {
			t.Fatalf("the engine refuses 2,000 taxids: %v", err)
		}
		if err := env.Client.Create(ctx, campaign("taxids-long-"+strings.ReplaceAll(name, "_", "-")).withOption(name, value).object()); err != nil {
			t.Errorf("-%s with 2,000 taxids (%d characters): %v", name, len(value), err)
		}
	}
	expectInvalid(t, env.Client.Create(ctx, campaign("taxids-too-long").withOption("taxids", ids(2100)).object()),
		"spec.blastOptions[0].value", "16384")
	expectInvalid(t, env.Client.Create(ctx, campaign("matrix-too-long").withOption("matrix", strings.Repeat("B", 300)).object()),
		"spec.blastOptions[0]", "-matrix takes at most 256 characters")
}
