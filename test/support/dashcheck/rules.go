package dashcheck

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// Rule is one alerting or recording rule of a Prometheus rules file.
type Rule struct {
	File   string // base name of the rules file
	Group  string
	Alert  string // empty for a recording rule
	Record string
	Expr   string
	For    string
	Labels map[string]string
}

// Name is the alert's or the recorded series' name.
func (r Rule) Name() string {
	if r.Alert != "" {
		return r.Alert
	}
	return r.Record
}

// RuleGroups is a Prometheus rules file, which is also the spec of a
// Prometheus Operator PrometheusRule.
type RuleGroups struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Record      string            `json:"record"`
			Expr        string            `json:"expr"`
			For         string            `json:"for"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

// LoadRules reads a Prometheus rules file.
func LoadRules(path string) ([]Rule, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rules, err := ParseRules(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range rules {
		rules[i].File = filepath.Base(path)
	}
	return rules, nil
}

// ParseRules parses a rules file's groups (YAML or JSON).
func ParseRules(b []byte) ([]Rule, error) {
	var g RuleGroups
	if err := yaml.UnmarshalStrict(b, &g); err != nil {
		return nil, fmt.Errorf("not a rules file: %w", err)
	}
	var out []Rule
	for _, grp := range g.Groups {
		for _, r := range grp.Rules {
			out = append(out, Rule{Group: grp.Name, Alert: r.Alert, Record: r.Record, Expr: r.Expr, For: r.For, Labels: r.Labels})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rules")
	}
	return out, nil
}
