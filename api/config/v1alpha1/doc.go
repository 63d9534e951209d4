// Package v1alpha1 is the operator's configuration file, kind
// Configuration of config.blastfleet.io/v1alpha1: every setting of
// blastfleet-manager, with its default here in code. A file names only
// what it changes (the chart and config/manager render only what differs
// from these defaults); blastfleet-manager reads it with --config, and a
// command-line flag still overrides the file's value.
package v1alpha1
