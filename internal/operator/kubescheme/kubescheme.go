// Package kubescheme is the runtime scheme the operator, the CLI and the
// tests share: Kubernetes' built-in types, blastfleet.io and the MPI
// operator's kubeflow.org/v2beta1.
package kubescheme

import (
	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// AddToScheme adds every type the operator reads or writes.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, kubeflow.AddToScheme} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// New is a scheme with every type added.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		panic(err) // static registration: cannot fail at run time
	}
	return s
}
