package dashcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Dashboard is the part of a Grafana dashboard JSON model dashcheck reads.
type Dashboard struct {
	File          string // base name of the file it was read from
	UID           string
	Title         string
	SchemaVersion int
	Panels        []Panel // rows flattened: a row's nested panels follow it
	Variables     []Variable
}

// Panel is one panel with its queries. Rows have no targets.
type Panel struct {
	ID         int
	Type       string
	Title      string
	Datasource Datasource
	Targets    []Target
}

// Target is one query of a panel.
type Target struct {
	RefID      string
	Expr       string
	Hide       bool
	Datasource Datasource
}

// Datasource is a panel's or target's data source reference.
type Datasource struct {
	Type string
	UID  string
}

// Variable is one template variable (templating.list).
type Variable struct {
	Name, Type string
	// Query is the variable's query: label_values(...) for a query
	// variable, the comma-separated options of a custom one.
	Query      string
	Current    string // current.value, if a single string
	Multi      bool
	IncludeAll bool
	Datasource Datasource
}

// LoadDashboards reads every *.json file of dir, sorted by name.
func LoadDashboards(dir string) ([]*Dashboard, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*Dashboard
	for _, f := range files {
		d, err := LoadDashboard(f)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// LoadDashboard reads one dashboard JSON file.
func LoadDashboard(path string) (*Dashboard, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := ParseDashboard(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.File = filepath.Base(path)
	return d, nil
}

// The JSON model, as Grafana writes it (schemaVersion 39).
type (
	jsonDashboard struct {
		UID           string      `json:"uid"`
		Title         string      `json:"title"`
		SchemaVersion int         `json:"schemaVersion"`
		Panels        []jsonPanel `json:"panels"`
		Templating    struct {
			List []jsonVariable `json:"list"`
		} `json:"templating"`
	}
	jsonPanel struct {
		ID         int             `json:"id"`
		Type       string          `json:"type"`
		Title      string          `json:"title"`
		Datasource json.RawMessage `json:"datasource"`
		Targets    []jsonTarget    `json:"targets"`
		Panels     []jsonPanel     `json:"panels"` // a collapsed row's
	}
	jsonTarget struct {
		RefID      string          `json:"refId"`
		Expr       string          `json:"expr"`
		Hide       bool            `json:"hide"`
		Datasource json.RawMessage `json:"datasource"`
	}
	jsonVariable struct {
		Name       string          `json:"name"`
		Type       string          `json:"type"`
		Query      json.RawMessage `json:"query"`
		Definition string          `json:"definition"`
		Multi      bool            `json:"multi"`
		IncludeAll bool            `json:"includeAll"`
		Datasource json.RawMessage `json:"datasource"`
		Current    struct {
			Value json.RawMessage `json:"value"`
		} `json:"current"`
	}
)

// ParseDashboard parses a dashboard's JSON model.
func ParseDashboard(b []byte) (*Dashboard, error) {
	var j jsonDashboard
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("not a dashboard JSON model: %w", err)
	}
	d := &Dashboard{UID: j.UID, Title: j.Title, SchemaVersion: j.SchemaVersion}
	var walk func(ps []jsonPanel)
	walk = func(ps []jsonPanel) {
		for _, p := range ps {
			panel := Panel{ID: p.ID, Type: p.Type, Title: p.Title, Datasource: parseDatasource(p.Datasource)}
			for _, t := range p.Targets {
				panel.Targets = append(panel.Targets, Target{RefID: t.RefID, Expr: t.Expr, Hide: t.Hide, Datasource: parseDatasource(t.Datasource)})
			}
			d.Panels = append(d.Panels, panel)
			walk(p.Panels)
		}
	}
	walk(j.Panels)
	for _, v := range j.Templating.List {
		d.Variables = append(d.Variables, Variable{
			Name: v.Name, Type: v.Type, Query: variableQuery(v), Current: stringValue(v.Current.Value),
			Multi: v.Multi, IncludeAll: v.IncludeAll, Datasource: parseDatasource(v.Datasource),
		})
	}
	return d, nil
}

// variableQuery is the query as a string: Grafana writes either a string
// or, for newer Prometheus variables, an object whose "query" holds it.
func variableQuery(v jsonVariable) string {
	if s := stringValue(v.Query); s != "" {
		return s
	}
	var obj struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(v.Query, &obj) == nil && obj.Query != "" {
		return obj.Query
	}
	return v.Definition
}

// parseDatasource reads {"type": ..., "uid": ...} or a bare name string
// (older models).
func parseDatasource(raw json.RawMessage) Datasource {
	if s := stringValue(raw); s != "" {
		return Datasource{UID: s}
	}
	var ds struct{ Type, UID string }
	_ = json.Unmarshal(raw, &ds)
	return Datasource{Type: ds.Type, UID: ds.UID}
}

func stringValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}
