package operator

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
)

// TestPartitionNetworkPolicy: a campaign's partitions come with a
// NetworkPolicy, owned by the campaign, that lets into its pods only its
// own pods and scrapes of the ranks' metrics ports, so another tenant's
// pod in the namespace cannot reach a worker's sshd or a rank's MPI
// socket (issue 30, finding 16).
func TestPartitionNetworkPolicy(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("fenced")
	c := h.campaign("fenced", "sprot", 1)
	c.Spec.Partitions.SlotsPerWorker = 3
	h.create(c)
	h.writePlan("fenced", "sprot", 3)
	h.waitPartitions("fenced", "fenced-p0-r0")

	var np networkingv1.NetworkPolicy
	h.eventually("the campaign's NetworkPolicy", 10*time.Second, func() (bool, string) {
		err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: controllers.NetworkPolicyName("fenced")}, &np)
		return err == nil, errString(err)
	})
	own := h.get("fenced")
	if ref := metav1.GetControllerOf(&np); ref == nil || ref.UID != own.UID {
		t.Errorf("NetworkPolicy owner %+v, want the campaign (uid %s), so it goes with it", ref, own.UID)
	}
	want := map[string]string{controllers.LabelCampaign: "fenced"}
	if got := np.Spec.PodSelector.MatchLabels; len(got) != 1 || got[controllers.LabelCampaign] != "fenced" {
		t.Errorf("podSelector %v, want %v", np.Spec.PodSelector, want)
	}
	in := np.Spec.Ingress
	if len(in) != 2 || len(in[0].From) != 1 || in[0].From[0].PodSelector == nil || in[0].From[0].PodSelector.MatchLabels[controllers.LabelCampaign] != "fenced" ||
		len(in[0].From[0].PodSelector.MatchLabels) != 1 || in[0].From[0].NamespaceSelector != nil || len(in[0].Ports) != 0 {
		t.Fatalf("ingress %+v: want every port from the campaign's own pods, then the metrics ports from anywhere", in)
	}
	if p := in[1].Ports; len(in[1].From) != 0 || len(p) != 1 || p[0].Port.IntValue() != 9090 || p[0].EndPort == nil || *p[0].EndPort != 9093 {
		t.Errorf("metrics rule %+v: want 9090-9093 (3 slots and the master)", in[1])
	}
	if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress {
		t.Errorf("policy types %v, want Ingress only (the ranks reach DNS and object storage)", np.Spec.PolicyTypes)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
