package policy

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// CredentialsSecret checks that s, the Secret named name, may be used as
// object store credentials; s is nil when no Secret of that name exists
// (which matters only when the label is required: otherwise the caller
// says the Secret is missing).
// Without the opt-in label, anyone who may create a campaign in a
// namespace could hand any Secret there (a registry password, a service
// account token) to pods running an image of their choice. A missing
// Secret is refused with the same reason and message as an unlabelled
// one, so an author who may not read Secrets cannot learn which exist.
func (p Policy) CredentialsSecret(field, name string, s *corev1.Secret) error {
	if !p.RequireCredentialsLabel || s != nil && s.Labels[v1alpha1.CredentialsLabel] == "true" {
		return nil
	}
	return &Violation{Reason: ReasonSecretNotAllowed, Field: field,
		Msg: fmt.Sprintf("Secret %q is not one the operator's policy lets it use as credentials: it must exist in the namespace and carry the label %s=true (kubectl label secret %s %s=true)",
			name, v1alpha1.CredentialsLabel, name, v1alpha1.CredentialsLabel)}
}

// ReasonCABundleNotAllowed: a caBundle names a ConfigMap without the
// opt-in label.
const ReasonCABundleNotAllowed = "CABundleNotAllowed"

// CABundleConfigMap checks that cm, the ConfigMap named name, may be used
// as a caBundle. Without the opt-in label, an author who may create
// campaigns but not read ConfigMaps could have any ConfigMap of the
// namespace mounted into pods running an image of their choice.
func (p Policy) CABundleConfigMap(field, name string, cm *corev1.ConfigMap) error {
	if !p.RequireCABundleLabel || cm.Labels[v1alpha1.CABundleLabel] == "true" {
		return nil
	}
	return &Violation{Reason: ReasonCABundleNotAllowed, Field: field,
		Msg: fmt.Sprintf("ConfigMap %q is not one the operator's policy lets it use as a caBundle: it must carry the label %s=true (kubectl label configmap %s %s=true)",
			name, v1alpha1.CABundleLabel, name, v1alpha1.CABundleLabel)}
}
