package policy

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// CredentialsSecret checks that s may be used as object store
// credentials. Without the opt-in label, anyone who may create a campaign
// in a namespace could hand any Secret there (a registry password, a
// service account token) to pods running an image of their choice.
func (p Policy) CredentialsSecret(field string, s *corev1.Secret) error {
	if !p.RequireCredentialsLabel || s.Labels[v1alpha1.CredentialsLabel] == "true" {
		return nil
	}
	return &Violation{Reason: ReasonSecretNotAllowed, Field: field,
		Msg: fmt.Sprintf("Secret %q does not carry the label %s=true, which the operator's policy requires of a credentials Secret (kubectl label secret %s %s=true)",
			s.Name, v1alpha1.CredentialsLabel, s.Name, v1alpha1.CredentialsLabel)}
}
