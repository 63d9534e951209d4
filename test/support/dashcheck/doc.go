// Package dashcheck proves that Grafana dashboards and Prometheus alert
// rules query something real: it reads every panel's PromQL targets and
// every alert's expression, substitutes Grafana's template variables with
// concrete values (resolving the dashboards' own label_values variables
// through Prometheus), evaluates each query through Prometheus's HTTP API
// (/api/v1/query) and reports, per panel or alert, the queries Prometheus
// rejects (invalid) and those that return no series (empty).
//
// Alerts are judged by their signals, not their verdict: a silent alert
// returns no series by design, so each alert expression is split at its
// top-level comparisons and set operators (>, ==, and, unless, ...), number
// literals are dropped, absent(x) is replaced by x, and every remaining
// operand must return series (see Signals). The whole expression must
// still evaluate without error.
package dashcheck
