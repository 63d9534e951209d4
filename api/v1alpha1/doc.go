// Package v1alpha1 holds the blastfleet.io/v1alpha1 API: BlastDatabase (a
// FASTA sharded into object storage) and SearchCampaign (queries searched
// against a database by partitions that run as MPIJobs). Plain types with
// kubebuilder markers: defaults and validation live in the CRD schema and
// its CEL rules, so the API server rejects a bad spec before any compute.
// The markers that restate internal/bio/blast's tables (programs, outfmt
// columns, the BLAST option allowlist and its value patterns) are written
// by hack/gen-crd-rules, which make manifests runs.
//
// +kubebuilder:object:generate=true
// +groupName=blastfleet.io
//
//go:generate go run ../../hack/gen-crd-rules -file searchcampaign_types.go
package v1alpha1
