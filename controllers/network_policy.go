package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=create

// partitionNetworkPolicy lets into a campaign's pods only its own pods'
// traffic (mpirun's ssh, OpenMPI's daemons and ranks on ports they pick)
// and scrapes of the ranks' metrics ports (one per rank of a worker pod,
// from enginemetrics.DefaultPort, as executor.MetricsPorts declares): another tenant's pod in the
// namespace cannot reach a worker's sshd or a rank's MPI socket. Egress
// stays open: the ranks reach DNS and object storage.
func partitionNetworkPolicy(c *v1alpha1.SearchCampaign) *networkingv1.NetworkPolicy {
	own := metav1.LabelSelector{MatchLabels: map[string]string{LabelCampaign: c.Name}}
	first := int32(enginemetrics.DefaultPort)
	last := first + max(c.Spec.Partitions.SlotsPerWorker, 1) // slots + the master
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: NetworkPolicyName(c.Name), Namespace: c.Namespace,
			Labels: map[string]string{LabelCampaign: c.Name, LabelManagedBy: managedByValue}},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: own,
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{
				{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &own}}},
				{Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP),
					Port: ptr.To(intstr.FromInt32(first)), EndPort: ptr.To(last)}}},
			},
		},
	}
}

// ensureNetworkPolicy creates the campaign's partition NetworkPolicy,
// owned by the campaign, unless the operator runs without them.
func (run *campaignRun) ensureNetworkPolicy(ctx context.Context) error {
	if !run.r.PartitionNetworkPolicy || run.policyMade {
		return nil
	}
	np := partitionNetworkPolicy(run.c)
	if err := controllerutil.SetControllerReference(run.c, np, run.r.Scheme); err != nil {
		return fmt.Errorf("owning NetworkPolicy %s: %w", np.Name, err)
	}
	if err := run.r.Create(ctx, np); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating NetworkPolicy %s for the partitions: %w", np.Name, err)
	}
	run.policyMade = true
	return nil
}
