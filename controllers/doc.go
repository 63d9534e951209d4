// Package controllers holds the operator's reconcilers. The
// SearchCampaign reconciler is the campaign's supermaster: it makes sure
// the plan exists in the ledger, keeps the asked-for number of partitions
// (MPIJobs) running, replaces failed ones within the restart budget, and
// reports progress read from the ledger. The BlastDatabase reconciler
// shards a FASTA with an Indexed Job. Neither searches anything: the
// engine does, inside the partitions.
//
// One file per concern: naming and labels, object storage access,
// planning, partitions (what they run in partition_spec.go, their objects
// through the adapters of package executor, registered in executor.go),
// replacement and backoff, wind-down, status and metrics. Package pods
// makes every pod they create. The policies are pure functions
// of what a reconcile observed; the reconcilers only carry them out.
package controllers
