package kubecmd

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"
)

// printObject writes obj as indented JSON or as YAML, as kubectl -o does.
func printObject(w io.Writer, format string, obj any) error {
	var data []byte
	var err error
	switch format {
	case "json":
		data, err = json.MarshalIndent(obj, "", "    ")
		data = append(data, '\n')
	case "yaml":
		data, err = yaml.Marshal(obj)
	default:
		return fmt.Errorf("unknown output format %q", format)
	}
	if err != nil {
		return fmt.Errorf("encoding as %s: %w", format, err)
	}
	_, err = w.Write(data)
	return err
}

// newTable is a tabwriter laid out as kubectl lays out its tables.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 6, 4, 3, ' ', 0)
}

// age is kubectl's AGE column: 5s, 12m, 3h4m, 2d.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}
