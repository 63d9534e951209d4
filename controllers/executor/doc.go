// Package executor is what runs a campaign's partitions, seen from the
// campaign reconciler: an Executor interface that small per-kind
// adapters implement (package mpijob for MPIJobs, package argo for Argo
// Workflows), a Registry holding them by spec.executor, and the
// PartitionSpec every adapter wraps in objects of its kind, with the
// engine's arguments typed (Engine) so each adapter renders its own
// command line. The adapters import this package, never the
// reconcilers'.
package executor
