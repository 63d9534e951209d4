package dashcheck

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeProm answers /api/v1/query and /api/v1/label/<name>/values as
// Prometheus does, from tables, and records what it was asked.
type fakeProm struct {
	t *testing.T
	// series is how many series each query returns; a query not listed
	// returns none.
	series map[string]int
	// invalid queries get a bad_data error with this message.
	invalid map[string]string
	// labels are the values of "label|selector".
	labels map[string][]string

	mu      sync.Mutex
	queries []string
	times   []string
	matches []string
}

func newFakeProm(t *testing.T) (*fakeProm, *Client) {
	f := &fakeProm{t: t, series: map[string]int{}, invalid: map[string]string{}, labels: map[string][]string{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, &Client{URL: srv.URL}
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		f.t.Errorf("bad form: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/api/v1/query":
		if r.Method != http.MethodPost {
			f.t.Errorf("query sent with %s", r.Method)
		}
		q := r.Form.Get("query")
		f.queries = append(f.queries, q)
		f.times = append(f.times, r.Form.Get("time"))
		if msg, bad := f.invalid[q]; bad {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"status":"error","errorType":"bad_data","error":%q}`, msg)
			return
		}
		var result []string
		for i := range f.series[q] {
			result = append(result, fmt.Sprintf(`{"metric":{"i":"%d"},"value":[1700000000,"1"]}`, i))
		}
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[%s]}}`, strings.Join(result, ","))
	case strings.HasPrefix(r.URL.Path, "/api/v1/label/"):
		label := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v1/label/"), "/values")
		sel := r.Form.Get("match[]")
		f.matches = append(f.matches, sel)
		values := f.labels[label+"|"+sel]
		if values == nil {
			values = []string{}
		}
		b, _ := json.Marshal(values)
		fmt.Fprintf(w, `{"status":"success","data":%s}`, b)
	default:
		http.NotFound(w, r)
	}
}
