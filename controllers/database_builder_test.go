package controllers

import (
	"testing"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// A prebuilt database is copied by its Job whatever spec.builder says; a
// FASTA is built as spec.builder says, by a Workflow by default where
// Argo is installed, and one asking for Argo where it is not waits in
// the pipeline builder (ArgoUnavailable).
func TestBuilderFor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		format  v1alpha1.SourceFormat
		builder v1alpha1.DatabaseBuilder
		argo    bool
		want    databaseBuilder
	}{
		{"blastdb", v1alpha1.SourceBlastDB, v1alpha1.BuilderArgo, true, blastdbBuilder{}},
		{"default without argo", "", "", false, jobsBuilder{}},
		{"default with argo", "", "", true, pipelineBuilder{installed: true}},
		{"job with argo", "", v1alpha1.BuilderJob, true, jobsBuilder{}},
		{"argo without argo", "", v1alpha1.BuilderArgo, false, pipelineBuilder{installed: false}},
	} {
		db := &v1alpha1.BlastDatabase{}
		db.Spec.SourceFormat, db.Spec.Builder = tc.format, tc.builder
		if got := (&DatabaseReconciler{Argo: tc.argo}).builderFor(db); got != tc.want {
			t.Errorf("%s: %#v, want %#v", tc.name, got, tc.want)
		}
	}
}
