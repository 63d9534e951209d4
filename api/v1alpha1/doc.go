// Package v1alpha1 holds the blastfleet.io/v1alpha1 API: BlastDatabase (a
// FASTA sharded into object storage) and SearchCampaign (queries searched
// against a database by partitions that run as MPIJobs). Plain types with
// kubebuilder markers: defaults and validation live in the CRD schema and
// its CEL rules, so the API server rejects a bad spec before any compute.
//
// +kubebuilder:object:generate=true
// +groupName=blastfleet.io
package v1alpha1
