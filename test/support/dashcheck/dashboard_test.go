package dashcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// testDashboard is a small Grafana model: a collapsed row holding a
// panel, variables written both ways Grafana writes them, and a legacy
// data source string.
const testDashboard = `{
  "uid": "test-campaign", "title": "Test campaign", "schemaVersion": 39,
  "templating": {"list": [
    {"name": "datasource", "type": "datasource", "query": "prometheus"},
    {"name": "namespace", "type": "query", "datasource": {"type": "prometheus", "uid": "${datasource}"},
     "query": {"query": "label_values(blastfleet_campaign_queries, namespace)", "refId": "v"},
     "definition": "label_values(blastfleet_campaign_queries, namespace)"},
    {"name": "campaign", "type": "query", "datasource": {"type": "prometheus", "uid": "${datasource}"},
     "query": "label_values(blastfleet_campaign_queries{namespace=\"$namespace\"}, campaign)", "multi": true, "includeAll": true},
    {"name": "quantile", "type": "custom", "query": "0.99, 0.9, 0.5", "current": {"value": ["0.99"]}}
  ]},
  "panels": [
    {"id": 1, "type": "stat", "title": "Done", "datasource": {"type": "prometheus", "uid": "${datasource}"},
     "targets": [{"refId": "A", "expr": "max(blastfleet_campaign_queries{namespace=\"$namespace\", campaign=\"$campaign\", state=\"done\"})"}]},
    {"id": 2, "type": "row", "title": "Engine", "collapsed": true, "panels": [
      {"id": 3, "type": "timeseries", "title": "Queries/s", "datasource": "${datasource}",
       "targets": [
         {"refId": "A", "expr": "sum(rate(blastfleet_engine_queries_total{campaign=\"$campaign\"}[$__rate_interval]))"},
         {"refId": "B", "expr": "histogram_quantile($quantile, sum by (le) (rate(blastfleet_engine_blast_seconds_bucket[$__rate_interval])))", "hide": true}
       ]}
    ]},
    {"id": 4, "type": "text", "title": "About", "options": {"content": "hello"}}
  ]
}`

func writeDashboard(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDashboard(t *testing.T) {
	dir := t.TempDir()
	writeDashboard(t, dir, "b.json", testDashboard)
	writeDashboard(t, dir, "a.json", `{"uid": "a", "title": "A", "schemaVersion": 39, "panels": []}`)
	writeDashboard(t, dir, "notes.md", "not a dashboard")
	ds, err := LoadDashboards(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].File != "a.json" || ds[1].File != "b.json" {
		t.Fatalf("LoadDashboards read %d dashboards", len(ds))
	}
	d := ds[1]
	if d.UID != "test-campaign" || d.Title != "Test campaign" || d.SchemaVersion != 39 {
		t.Errorf("header %+v", d)
	}
	var titles []string
	for _, p := range d.Panels {
		titles = append(titles, p.Title)
	}
	if len(d.Panels) != 4 || d.Panels[2].Title != "Queries/s" || len(d.Panels[2].Targets) != 2 {
		t.Fatalf("panels %q: the collapsed row's panel should follow the row", titles)
	}
	q := d.Panels[2]
	if q.Datasource.UID != "${datasource}" || !q.Targets[1].Hide || q.Targets[1].RefID != "B" {
		t.Errorf("panel Queries/s: %+v", q)
	}
	if d.Panels[0].Datasource != (Datasource{Type: "prometheus", UID: "${datasource}"}) {
		t.Errorf("data source object: %+v", d.Panels[0].Datasource)
	}
	vs := d.Variables
	if len(vs) != 4 || vs[1].Query != "label_values(blastfleet_campaign_queries, namespace)" ||
		vs[2].Query != `label_values(blastfleet_campaign_queries{namespace="$namespace"}, campaign)` || !vs[2].Multi || !vs[2].IncludeAll {
		t.Errorf("variables %+v", vs)
	}
	if _, err := ParseDashboard([]byte(`{"panels": 3}`)); err == nil {
		t.Error("a malformed model parsed")
	}
}
