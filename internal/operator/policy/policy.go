package policy

import (
	"errors"
	"fmt"
	"strings"
)

// Reasons a violation is reported with, as a condition's reason.
const (
	// ReasonViolation: a field asks for what the policy does not allow.
	ReasonViolation = "PolicyViolation"
	// ReasonSecretNotAllowed: the credentials Secret has not opted in.
	ReasonSecretNotAllowed = "CredentialsSecretNotAllowed"
)

// IsRefusal says whether a condition's reason is one of the policy's.
func IsRefusal(reason string) bool {
	return reason == ReasonViolation || reason == ReasonSecretNotAllowed || reason == ReasonCABundleNotAllowed
}

// Policy is the operator's policy. A nil or empty list allows anything.
type Policy struct {
	// Images partitions, planning and sharding pods may run: an entry is
	// an image reference matched exactly, or a prefix ending in "*"
	// ("registry.example.org/blastfleet/*"). The operator's own
	// --worker-image is always allowed.
	Images []string
	// PriorityClasses a campaign's partitions may request.
	PriorityClasses []string
	// NodeSelectors a campaign may use: "key" allows any value of the
	// label, "key=value" that value only.
	NodeSelectors []string
	// TolerationKeys a campaign's tolerations may name. A toleration
	// without a key (tolerate every taint) is refused when set.
	TolerationKeys []string
	// Endpoints object store endpoints may name: a host name, "*.domain"
	// (any name under the domain), or an IP address or CIDR. See
	// (Policy).Endpoint for internal addresses.
	Endpoints []string
	// AllowInternalEndpoints: with no Endpoints list, internal endpoints
	// (loopback, private and link-local addresses, cluster and cloud
	// internal names) are allowed too; off, only public ones. A local
	// stack whose MinIO is on loopback or a cluster Service sets it.
	AllowInternalEndpoints bool
	// RequireCredentialsLabel: a Secret named as credentials must carry
	// CredentialsLabel=true.
	RequireCredentialsLabel bool
	// RequireCABundleLabel: a ConfigMap named as a caBundle must carry
	// CABundleLabel=true.
	RequireCABundleLabel bool
	// AllowOperatorIdentity: a store without credentialsSecretRef (and
	// not anonymous) is reached by the operator with its own identity.
	AllowOperatorIdentity bool
	// ServiceAccounts a campaign's pods may run as
	// (spec.partitions.serviceAccountName); "" (the namespace's default)
	// is always allowed.
	ServiceAccounts []string
}

// Violation is a field asking for what the policy does not allow.
type Violation struct {
	// Reason is ReasonViolation or ReasonSecretNotAllowed.
	Reason string
	// Field is the path of the offending field, e.g. spec.partitions.image.
	Field string
	// Msg says what is not allowed and what would be.
	Msg string
}

func (v *Violation) Error() string { return v.Field + ": " + v.Msg }

// notAllowed is the usual violation: value is not among allowed.
func notAllowed(field, value string, allowed []string) *Violation {
	return &Violation{Reason: ReasonViolation, Field: field,
		Msg: fmt.Sprintf("%q is not allowed by the operator's policy (allowed: %s)", value, strings.Join(allowed, ", "))}
}

// Validate checks the policy's own entries, so a mistyped flag stops the
// operator at start rather than refusing every campaign.
func (p Policy) Validate() error {
	var errs []error
	for _, lists := range []struct {
		name    string
		entries []string
	}{{"images", p.Images}, {"priority classes", p.PriorityClasses}, {"node selectors", p.NodeSelectors}, {"toleration keys", p.TolerationKeys}, {"service accounts", p.ServiceAccounts}} {
		for _, e := range lists.entries {
			if strings.TrimSpace(e) == "" || strings.ContainsAny(e, " \t\n") {
				errs = append(errs, fmt.Errorf("policy: %s: entry %q is empty or has spaces", lists.name, e))
			}
		}
	}
	for _, e := range p.NodeSelectors {
		if strings.HasPrefix(e, "=") {
			errs = append(errs, fmt.Errorf("policy: node selectors: entry %q has no key", e))
		}
	}
	if _, err := parseEndpoints(p.Endpoints); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Image checks the image pods of field would run. "" (the operator's
// default) and defaultImage itself are always allowed: the administrator
// chose them.
func (p Policy) Image(field, image, defaultImage string) error {
	if len(p.Images) == 0 || image == "" || image == defaultImage {
		return nil
	}
	for _, e := range p.Images {
		if prefix, ok := strings.CutSuffix(e, "*"); ok && strings.HasPrefix(image, prefix) || e == image {
			return nil
		}
	}
	return notAllowed(field, image, p.Images)
}
