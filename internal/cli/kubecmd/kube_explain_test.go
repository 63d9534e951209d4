package kubecmd

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

func TestExplain(t *testing.T) {
	k := &kube{cfg: &rest.Config{Host: "https://10.0.0.1:6443"}, context: "prod", bin: "kubectl blastfleet"}
	noCRD := fmt.Errorf("campaign default/x: %w", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "blastfleet.io", Kind: "SearchCampaign"}})
	noMPI := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "kubeflow.org", Kind: "MPIJob"}}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{noCRD, `the blastfleet.io API is not installed on the cluster at https://10.0.0.1:6443 (context "prod"): install blastfleet's CRDs`},
		{noMPI, "the MPIJob API (kubeflow.org/v2beta1) is not installed"},
		{errors.New("some API error"), "some API error"},
	} {
		got := k.explain(tc.err)
		if !strings.HasPrefix(got.Error(), tc.want) || !errors.Is(got, tc.err) {
			t.Errorf("explain(%v) = %v, want %q...", tc.err, got, tc.want)
		}
		if again := k.explain(got); again.Error() != got.Error() {
			t.Errorf("explained twice: %v", again)
		}
	}
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	if got := k.explain(dial); !strings.HasPrefix(got.Error(), "cannot reach the API server at https://10.0.0.1:6443") || !strings.Contains(got.Error(), `"kubectl blastfleet dev up"`) {
		t.Errorf("explain(dial) = %v", got)
	}
	// Object storage that is down is not the API server.
	if got := k.explain(storageError(dial)); got.Error() != dial.Error() {
		t.Errorf("explain(storageError(dial)) = %v", got)
	}
}
