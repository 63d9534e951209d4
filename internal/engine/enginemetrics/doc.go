// Package enginemetrics is the engine's Prometheus exporter: one set of
// series per rank (labels namespace, campaign, partition, rank, role),
// served on /metrics. The names and labels are the contract in
// docs/observability.md, which the dashboards and alerts query.
//
// A nil *Rank records nothing, so engine code calls it unconditionally.
package enginemetrics
