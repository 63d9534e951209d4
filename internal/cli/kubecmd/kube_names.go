package kubecmd

import (
	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
)

// Labels and annotations the CLI reads. The blastfleet ones mirror
// controllers/names.go (a test keeps them equal): the CLI does not import
// the operator, which would build the whole reconciler into it.
const (
	labelCampaign  = "blastfleet.io/campaign"
	labelPartition = "blastfleet.io/partition"
	labelRestart   = "blastfleet.io/restart"

	// annotationLauncherLog is set on an MPIJob by the local runner
	// (blastfleet dev up), which has no pods: the path of the file its
	// launcher's output goes to.
	annotationLauncherLog = "blastfleet.io/launcher-log"

	// The MPI operator (v0.8) labels the launcher pod of MPIJob X with
	// training.kubeflow.org/job-name=X and job-role=launcher (its
	// defaultLabels); "launcher" is an unexported constant there.
	labelMPIJobName  = kubeflow.JobNameLabel
	labelMPIJobRole  = kubeflow.JobRoleLabel
	mpiLauncherRole  = "launcher"
	campaignResource = "searchcampaign.blastfleet.io"
)
