// Package argowf names what blastfleet uses of Argo Workflows: the
// release it is tested with, its API group and kinds. The operator
// builds Workflows as unstructured objects from these (Argo's Go module
// is too heavy to import); hack/install-argo.sh builds the same release.
package argowf

import "k8s.io/apimachinery/pkg/runtime/schema"

// Module and Version are Argo Workflows' Go module and the release the
// one-node cluster runs (hack/install-argo.sh builds it; a test keeps the
// two equal). v3.7.18: docs/install.md says why.
const (
	Module  = "github.com/argoproj/argo-workflows/v3"
	Version = "v3.7.18"
)

// The kinds blastfleet creates.
var (
	GroupVersion     = schema.GroupVersion{Group: "argoproj.io", Version: "v1alpha1"}
	Workflow         = GroupVersion.WithKind("Workflow")
	WorkflowList     = GroupVersion.WithKind("WorkflowList")
	WorkflowTemplate = GroupVersion.WithKind("WorkflowTemplate")
)

// Workflow phases (status.phase) and node phases (status.nodes[].phase).
const (
	PhasePending   = "Pending"
	PhaseRunning   = "Running"
	PhaseSucceeded = "Succeeded"
	PhaseFailed    = "Failed"
	PhaseError     = "Error"
)

// ExecutorServiceAccount is the ServiceAccount, in a campaign's or a
// database's namespace, that Workflow pods run as: Argo's wait container
// records each step's result (workflowtaskresults create and patch, all
// it is allowed).
const ExecutorServiceAccount = "blastfleet-argo-executor"
