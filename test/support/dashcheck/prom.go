package dashcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client queries a Prometheus server's HTTP API.
type Client struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:9090.
	URL string
	// HTTP defaults to a client with a 30 s timeout.
	HTTP *http.Client
}

// QueryError is Prometheus refusing a query (status "error"), as opposed
// to a failure to reach it.
type QueryError struct {
	Type, Message string
}

func (e *QueryError) Error() string { return e.Type + ": " + e.Message }

// Result is what an instant query returned.
type Result struct {
	Type   string // vector, matrix, scalar or string
	Series int    // series in a vector or matrix; 1 for a scalar or string
	// Labels holds each series' labels.
	Labels []map[string]string
	// Samples holds a matrix's sample timestamps per series (range
	// selectors queried directly), for callers that look at history.
	Samples [][]time.Time
}

// apiResponse is the envelope of every /api/v1 answer.
type apiResponse struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
}

// Query evaluates expr at time at (the server's now when zero).
func (c *Client) Query(ctx context.Context, expr string, at time.Time) (Result, error) {
	form := url.Values{"query": {expr}}
	if !at.IsZero() {
		form.Set("time", formatTime(at))
	}
	var data struct {
		ResultType string            `json:"resultType"`
		Result     []json.RawMessage `json:"result"`
	}
	raw, err := c.call(ctx, http.MethodPost, "/api/v1/query", form)
	if err != nil {
		return Result{}, err
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return Result{}, fmt.Errorf("decoding the query result: %w", err)
	}
	r := Result{Type: data.ResultType}
	switch data.ResultType {
	case "vector", "matrix":
		r.Series = len(data.Result)
		for _, s := range data.Result {
			var series struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			}
			if err := json.Unmarshal(s, &series); err != nil {
				return r, fmt.Errorf("decoding a series: %w", err)
			}
			r.Labels = append(r.Labels, series.Metric)
			if data.ResultType == "vector" {
				continue
			}
			var ts []time.Time
			for _, v := range series.Values {
				if f, ok := v[0].(float64); ok {
					ts = append(ts, time.UnixMilli(int64(f*1000)))
				}
			}
			r.Samples = append(r.Samples, ts)
		}
	default: // scalar, string: one value
		r.Series = 1
	}
	return r, nil
}

// LabelValues lists the values of label on the series matching selector
// (every series when empty) between start and end.
func (c *Client) LabelValues(ctx context.Context, label, selector string, start, end time.Time) ([]string, error) {
	q := url.Values{"start": {formatTime(start)}, "end": {formatTime(end)}}
	if selector != "" {
		q.Set("match[]", selector)
	}
	raw, err := c.call(ctx, http.MethodGet, "/api/v1/label/"+url.PathEscape(label)+"/values", q)
	if err != nil {
		return nil, err
	}
	var values []string
	if err := json.Unmarshal(raw, &values); err != nil {
		return nil, fmt.Errorf("decoding label values: %w", err)
	}
	return values, nil
}

// ScrapeTarget is one active target of /api/v1/targets.
type ScrapeTarget struct {
	Labels     map[string]string `json:"labels"`
	ScrapeURL  string            `json:"scrapeUrl"`
	Health     string            `json:"health"` // up, down, unknown
	LastError  string            `json:"lastError"`
	LastScrape time.Time         `json:"lastScrape"`
}

// Targets lists the server's active scrape targets.
func (c *Client) Targets(ctx context.Context) ([]ScrapeTarget, error) {
	raw, err := c.call(ctx, http.MethodGet, "/api/v1/targets", url.Values{"state": {"active"}})
	if err != nil {
		return nil, err
	}
	var data struct {
		ActiveTargets []ScrapeTarget `json:"activeTargets"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("decoding targets: %w", err)
	}
	return data.ActiveTargets, nil
}

// call sends one API request and returns the answer's data, or a
// *QueryError when Prometheus answered with status "error".
func (c *Client) call(ctx context.Context, method, path string, params url.Values) (json.RawMessage, error) {
	u := strings.TrimRight(c.URL, "/") + path
	var body io.Reader
	if method == http.MethodGet {
		u += "?" + params.Encode()
	} else {
		body = strings.NewReader(params.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	var r apiResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s %s: %s: not a Prometheus API answer: %.200s", method, path, resp.Status, b)
	}
	if r.Status != "success" {
		if r.ErrorType == "" && r.Error == "" {
			return nil, fmt.Errorf("%s %s: %s with status %q", method, path, resp.Status, r.Status)
		}
		return nil, &QueryError{Type: r.ErrorType, Message: r.Error}
	}
	return r.Data, nil
}

// IsQueryError reports whether err is Prometheus rejecting the query.
func IsQueryError(err error) bool {
	var qe *QueryError
	return errors.As(err, &qe)
}

func formatTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}
