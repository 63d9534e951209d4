package kubecmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/util/jsonpath"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// campaignColumns are the CRD's printer columns (the +kubebuilder:
// printcolumn markers on SearchCampaign, in their order, so this table
// and kubectl get bsc agree), then what -o wide adds. Priority 1 columns
// show only with -o wide, as in kubectl.
var campaignColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name"},
	{Name: "Phase", Type: "string"},
	{Name: "Progress", Type: "string"},
	{Name: "Chunks", Type: "string"},
	{Name: "Partitions", Type: "string"},
	{Name: "Sites", Type: "string", Priority: 1},
	{Name: "Age", Type: "date"},
	{Name: "Database", Type: "string", Priority: 1},
	{Name: "Program", Type: "string", Priority: 1},
	{Name: "Queries", Type: "string", Priority: 1},
	{Name: "Failed", Type: "integer", Priority: 1},
	{Name: "Location", Type: "string", Priority: 1},
}

// campaignTable is the campaigns as a Table for cli-runtime's table
// printer, which lays it out as kubectl does (-o wide, -A, --show-labels).
func campaignTable(items []v1alpha1.SearchCampaign, now time.Time) *metav1.Table {
	t := &metav1.Table{ColumnDefinitions: campaignColumns}
	for i := range items {
		c := &items[i]
		s := c.Status
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells: []any{c.Name, string(s.Phase), s.Progress, s.ChunksRatio, s.PartitionsRatio, s.SitesSummary,
				age(c.CreationTimestamp, now), c.Spec.DatabaseRef.Name, string(c.Spec.Program),
				fmt.Sprintf("%d/%d", s.Queries.Done, s.Queries.Total), s.Queries.Failed, campaignLocation(c)},
			Object: runtime.RawExtension{Object: c},
		})
	}
	return t
}

// customColumns is kubectl's -o custom-columns=HEADER:PATH,... and
// -o custom-columns-file=FILE (a line of headers, a line of paths): a
// column per JSONPath, <none> where it finds nothing.
type customColumns struct {
	headers []string
	paths   []*jsonpath.JSONPath
}

func parseCustomColumns(format string) (*customColumns, bool, error) {
	var pairs [][2]string
	if spec, ok := strings.CutPrefix(format, "custom-columns="); ok {
		for _, col := range strings.Split(spec, ",") {
			h, p, ok := strings.Cut(col, ":")
			if !ok || h == "" || p == "" {
				return nil, true, fmt.Errorf("-o custom-columns: %q is not HEADER:JSONPATH (e.g. NAME:.metadata.name)", col)
			}
			pairs = append(pairs, [2]string{h, p})
		}
	} else if file, ok := strings.CutPrefix(format, "custom-columns-file="); ok {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, true, fmt.Errorf("-o custom-columns-file: %w", err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) != 2 || len(strings.Fields(lines[0])) != len(strings.Fields(lines[1])) {
			return nil, true, fmt.Errorf("-o custom-columns-file %s: want a line of headers and a line of as many JSONPaths", file)
		}
		hs, ps := strings.Fields(lines[0]), strings.Fields(lines[1])
		for i := range hs {
			pairs = append(pairs, [2]string{hs[i], ps[i]})
		}
	} else {
		return nil, false, nil
	}
	cc := &customColumns{}
	for _, p := range pairs {
		jp := jsonpath.New(p[0]).AllowMissingKeys(true)
		if err := jp.Parse(relaxedJSONPath(p[1])); err != nil {
			return nil, true, fmt.Errorf("-o custom-columns: column %s, JSONPath %q: %w", p[0], p[1], err)
		}
		cc.headers = append(cc.headers, p[0])
		cc.paths = append(cc.paths, jp)
	}
	return cc, true, nil
}

// relaxedJSONPath accepts the paths kubectl accepts in custom columns:
// {.a.b}, .a.b and a.b.
func relaxedJSONPath(p string) string {
	p = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(p), "{"), "}")
	if !strings.HasPrefix(p, ".") {
		p = "." + p
	}
	return "{" + p + "}"
}

func (cc *customColumns) print(w io.Writer, items []v1alpha1.SearchCampaign, noHeaders bool) error {
	tw := printers.GetNewTabWriter(w)
	if !noHeaders {
		fmt.Fprintln(tw, strings.Join(cc.headers, "\t"))
	}
	for i := range items {
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&items[i])
		if err != nil {
			return fmt.Errorf("campaign %s: %w", items[i].Name, err)
		}
		cells := make([]string, len(cc.paths))
		for j, jp := range cc.paths {
			results, err := jp.FindResults(obj)
			if err != nil {
				return fmt.Errorf("-o custom-columns: column %s of campaign %s: %w", cc.headers[j], items[i].Name, err)
			}
			var vals []string
			for _, r := range results {
				for _, v := range r {
					vals = append(vals, fmt.Sprint(v.Interface()))
				}
			}
			cells[j] = strings.Join(vals, ",")
			if len(vals) == 0 {
				cells[j] = "<none>"
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
