package dashcheck

import (
	"fmt"
	"slices"
	"time"
)

// DatasourceVar is the data source variable every dashboard must have
// and every panel must use, so one dashboard works with any Prometheus.
const DatasourceVar = "${datasource}"

// MinSchemaVersion is the oldest dashboard schema accepted (Grafana 9.x
// writes 36; 10.4 and 11 write 39).
const MinSchemaVersion = 36

// Lint checks the conventions dashboards follow, without Prometheus:
// a uid and title, a recent schema, a Prometheus data source variable
// that every query uses, unique panel ids and refIds, and only known
// variables in queries.
func Lint(d *Dashboard) []string {
	var out []string
	bad := func(format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: ", d.File)+fmt.Sprintf(format, args...))
	}
	if d.UID == "" || d.Title == "" {
		bad("no uid or title")
	}
	if d.SchemaVersion < MinSchemaVersion {
		bad("schemaVersion %d, want at least %d", d.SchemaVersion, MinSchemaVersion)
	}
	known := map[string]bool{}
	for k := range Builtins(time.Time{}, 0, 0, 0) {
		known[k] = true
	}
	hasDS := false
	for _, v := range d.Variables {
		known[v.Name] = true
		switch {
		case v.Type == "datasource":
			hasDS = hasDS || (v.Name == "datasource" && v.Query == "prometheus")
		case v.Type == "query" && v.Datasource.UID != DatasourceVar:
			bad("variable $%s queries data source %q, not %s", v.Name, v.Datasource.UID, DatasourceVar)
		}
	}
	if !hasDS {
		bad(`no "datasource" variable of type datasource with query "prometheus"`)
	}
	ids := map[int]string{}
	for _, p := range d.Panels {
		if p.ID == 0 {
			bad("panel %q has no id", p.Title)
		} else if other, dup := ids[p.ID]; dup {
			bad("panels %q and %q share id %d", other, p.Title, p.ID)
		}
		ids[p.ID] = p.Title
		if p.Type == "row" || p.Type == "text" {
			continue
		}
		if p.Title == "" {
			bad("panel %d has no title", p.ID)
		}
		if len(p.Targets) == 0 {
			bad("panel %q has no query", p.Title)
			continue
		}
		if p.Datasource.UID != DatasourceVar {
			bad("panel %q uses data source %q, not %s", p.Title, p.Datasource.UID, DatasourceVar)
		}
		var refs []string
		for _, t := range p.Targets {
			if t.Expr == "" || t.RefID == "" {
				bad("panel %q has a query without expr or refId", p.Title)
			}
			if slices.Contains(refs, t.RefID) {
				bad("panel %q has two queries %s", p.Title, t.RefID)
			}
			refs = append(refs, t.RefID)
			if t.Datasource.UID != "" && t.Datasource.UID != DatasourceVar {
				bad("panel %q query %s uses data source %q, not %s", p.Title, t.RefID, t.Datasource.UID, DatasourceVar)
			}
			for _, name := range References(t.Expr) {
				if !known[name] {
					bad("panel %q query %s uses $%s, which is not a variable of the dashboard", p.Title, t.RefID, name)
				}
			}
		}
	}
	return out
}

// LintAll lints each dashboard and checks their uids and titles are
// unique.
func LintAll(ds []*Dashboard) []string {
	var out []string
	uids, titles := map[string]string{}, map[string]string{}
	for _, d := range ds {
		out = append(out, Lint(d)...)
		if f, dup := uids[d.UID]; dup && d.UID != "" {
			out = append(out, fmt.Sprintf("%s and %s share uid %q", f, d.File, d.UID))
		}
		if f, dup := titles[d.Title]; dup && d.Title != "" {
			out = append(out, fmt.Sprintf("%s and %s share title %q", f, d.File, d.Title))
		}
		uids[d.UID], titles[d.Title] = d.File, d.File
	}
	return out
}
